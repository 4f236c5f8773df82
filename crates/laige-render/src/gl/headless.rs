//! Headless creation: an EGL context on the platform's EGL device (Mesa's
//! software device on CI), surfaceless or on a 1×1 pbuffer, rendering into a
//! framebuffer object of the configured size.

#![allow(
    unsafe_code,
    reason = "glutin's EGL display constructor and glow's GL entry points are unsafe FFI"
)]

use laige_core::Result;

use super::context::{CurrentGlContext, MAX_TARGET_SIZE, validate_size};

/// Which EGL surface a headless context is bound with. Either way the
/// rendering goes into the context's framebuffer object.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HeadlessSurface {
    /// No surface (`EGL_KHR_surfaceless_context`) — the default: nothing
    /// to allocate, supported by Mesa and the proprietary desktop drivers.
    #[default]
    Surfaceless,
    /// A 1×1 pbuffer surface, for EGL implementations without the
    /// surfaceless extension.
    Pbuffer,
}

/// How to create a headless context ([`CurrentGlContext::headless`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeadlessConfig {
    /// Framebuffer width in pixels, `1..=`[`MAX_TARGET_SIZE`] (and at most
    /// the driver's `GL_MAX_RENDERBUFFER_SIZE`). Default 256.
    pub width: u32,
    /// Framebuffer height in pixels, same range. Default 256.
    pub height: u32,
    /// The EGL surface kind. Default [`HeadlessSurface::Surfaceless`].
    pub surface: HeadlessSurface,
}

impl Default for HeadlessConfig {
    /// 256×256, surfaceless. Where the size comes from: large enough for a
    /// readable snapshot of a test scene, small enough that a software
    /// rasterizer (llvmpipe on CI) clears and reads it back in well under a
    /// millisecond.
    fn default() -> Self {
        Self {
            width: 256,
            height: 256,
            surface: HeadlessSurface::Surfaceless,
        }
    }
}

impl CurrentGlContext {
    /// Creates a headless OpenGL 3.3 core context on an EGL device, current
    /// on the calling thread, rendering into a framebuffer object of
    /// `config.width × config.height` (RGBA8).
    ///
    /// Tries every EGL device in the order EGL lists them and keeps the
    /// first on which the whole creation succeeds. Takes tens of
    /// milliseconds on llvmpipe.
    ///
    /// ```
    /// use laige_render::gl::{CurrentGlContext, HeadlessConfig};
    ///
    /// let config = HeadlessConfig { width: 64, height: 32, ..HeadlessConfig::default() };
    /// match CurrentGlContext::headless(&config) {
    ///     Ok(gl) => assert_eq!(gl.size(), (64, 32)),
    ///     // A machine without EGL: the error says so.
    ///     Err(e) => assert_eq!(e.code(), laige_core::ErrorCode::Unsupported),
    /// }
    /// ```
    ///
    /// # Errors
    ///
    /// - `gl_context/size_invalid` (`InvalidArgument`): a zero side or one
    ///   above [`MAX_TARGET_SIZE`] (or the driver's limit).
    /// - `gl_context/create_failed` with `ErrorCode::Unsupported`: no
    ///   usable EGL (library missing, no device enumeration, no device that
    ///   gives an OpenGL 3.3 core context); the detail names what each
    ///   device answered.
    /// - `gl_context/create_failed` with `ErrorCode::Failed`: a platform call
    ///   failed on a device that otherwise qualifies.
    pub fn headless(config: &HeadlessConfig) -> Result<Self> {
        validate_size(config.width, config.height, MAX_TARGET_SIZE)?;
        imp::create(config)
    }
}

#[cfg(all(any(windows, unix), not(target_vendor = "apple")))]
mod imp {
    use std::ffi::CStr;

    use glow::HasContext;
    use glutin::api::egl;
    use glutin::config::{Api, ConfigSurfaceTypes, ConfigTemplateBuilder};
    use glutin::context::{
        ContextApi, ContextAttributesBuilder, GlProfile, NotCurrentContext, Version,
    };
    use glutin::display::GlDisplay;
    use glutin::prelude::NotCurrentGlContext;
    use glutin::surface::{PbufferSurface, SurfaceAttributesBuilder};

    use laige_core::{Error, ErrorCode, Result};

    use super::super::context::{BoundSurface, CurrentGlContext, MAX_TARGET_SIZE};
    use super::super::context::{Offscreen, Parts, gl_i32, next_context_id, validate_size};
    use super::{HeadlessConfig, HeadlessSurface};
    use crate::events::CONTEXT_CREATE_FAILED;

    pub(super) fn create(config: &HeadlessConfig) -> Result<CurrentGlContext> {
        let devices = egl::device::Device::query_devices().map_err(|e| {
            Error::new(ErrorCode::Unsupported, CONTEXT_CREATE_FAILED)
                .with_detail(
                    "EGL device enumeration is unavailable \
                         (is libEGL installed, e.g. Debian's libegl1 + libegl-mesa0?)",
                )
                .with_source(e)
        })?;
        let mut tried = String::new();
        let mut any_failed = false;
        for (idx, device) in devices.enumerate() {
            match create_on_device(&device, config) {
                Ok(ctx) => return Ok(ctx),
                // A size above this driver's limit: the caller's to fix
                // (already reported by the validation).
                Err(e) if e.code() == ErrorCode::InvalidArgument => return Err(e),
                Err(e) => {
                    use std::fmt::Write as _;
                    let name = device.name().or(device.vendor()).unwrap_or("unnamed");
                    let _ = write!(
                        tried,
                        "{}device {idx} ({name}): {e}",
                        if tried.is_empty() { "" } else { "; " }
                    );
                    any_failed |= e.code() != ErrorCode::Unsupported;
                }
            }
        }
        if tried.is_empty() {
            return Err(Error::new(ErrorCode::Unsupported, CONTEXT_CREATE_FAILED)
                .with_detail("EGL lists no device"));
        }
        // A device that failed outright (not for lack of support) makes the
        // whole creation a failure; otherwise nothing qualified.
        let code = if any_failed {
            ErrorCode::Failed
        } else {
            ErrorCode::Unsupported
        };
        Err(Error::new(code, CONTEXT_CREATE_FAILED).with_detail(format!(
            "no EGL device gave an OpenGL 3.3 core context: {tried}"
        )))
    }

    fn unsupported(detail: &'static str, source: glutin::error::Error) -> Error {
        Error::new(ErrorCode::Unsupported, CONTEXT_CREATE_FAILED)
            .with_detail(detail)
            .with_source(source)
    }

    fn failed(detail: &'static str, source: glutin::error::Error) -> Error {
        Error::new(ErrorCode::Failed, CONTEXT_CREATE_FAILED)
            .with_detail(detail)
            .with_source(source)
    }

    fn create_on_device(
        device: &egl::device::Device,
        config: &HeadlessConfig,
    ) -> Result<CurrentGlContext> {
        // SAFETY: `raw_display` is None, the case glutin documents as always
        // sound (only a Some(Drm handle) carries a validity requirement).
        let display = unsafe { egl::display::Display::with_device(device, None) }
            .map_err(|e| unsupported("creating an EGL display on the device", e))?;
        let display = glutin::display::Display::Egl(display);

        let surface_types = match config.surface {
            HeadlessSurface::Surfaceless => ConfigSurfaceTypes::empty(),
            HeadlessSurface::Pbuffer => ConfigSurfaceTypes::PBUFFER,
        };
        let template = ConfigTemplateBuilder::new()
            .with_api(Api::OPENGL)
            .with_surface_type(surface_types)
            .build();
        // SAFETY: the template carries no native window handle.
        let gl_config = unsafe { display.find_configs(template) }
            .map_err(|e| unsupported("finding an OpenGL EGL config", e))?
            .next()
            .ok_or_else(|| {
                Error::new(ErrorCode::Unsupported, CONTEXT_CREATE_FAILED)
                    .with_detail("the device has no EGL config for desktop OpenGL")
            })?;

        let attrs = ContextAttributesBuilder::new()
            .with_profile(GlProfile::Core)
            .with_context_api(ContextApi::OpenGl(Some(Version::new(3, 3))))
            .build(None);
        // SAFETY: the attributes carry no native window handle.
        let ctx: NotCurrentContext = unsafe { display.create_context(&gl_config, &attrs) }
            .map_err(|e| unsupported("creating an OpenGL 3.3 core context", e))?;

        let (surface, current) = match config.surface {
            HeadlessSurface::Surfaceless => {
                let bound = match ctx {
                    NotCurrentContext::Egl(c) => c.make_current_surfaceless().map_err(|e| {
                        unsupported("binding without a surface (EGL_KHR_surfaceless_context)", e)
                    })?,
                    #[allow(unreachable_patterns, reason = "the display is EGL, so is the context")]
                    _ => {
                        return Err(Error::new(ErrorCode::Unsupported, CONTEXT_CREATE_FAILED)
                            .with_detail("an EGL display created a non-EGL context"));
                    }
                };
                (
                    BoundSurface::Surfaceless,
                    glutin::context::PossiblyCurrentContext::Egl(bound),
                )
            }
            HeadlessSurface::Pbuffer => {
                let one = std::num::NonZeroU32::MIN;
                let attrs = SurfaceAttributesBuilder::<PbufferSurface>::new().build(one, one);
                // SAFETY: pbuffer creation has no pointer argument; glutin
                // marks it unsafe only for API symmetry.
                let surface = unsafe { display.create_pbuffer_surface(&gl_config, &attrs) }
                    .map_err(|e| failed("creating a 1×1 pbuffer surface", e))?;
                let current = ctx
                    .make_current(&surface)
                    .map_err(|e| failed("binding the pbuffer surface", e))?;
                (BoundSurface::Pbuffer(surface), current)
            }
        };

        // SAFETY: the context is current on this thread (bound just above),
        // so the loader returns its entry points; glow only stores them.
        let gl = unsafe {
            glow::Context::from_loader_function_cstr(|name: &CStr| display.get_proc_address(name))
        };
        check_version(&gl)?;
        // SAFETY: the context is current on this thread.
        let driver_max = unsafe { gl.get_parameter_i32(glow::MAX_RENDERBUFFER_SIZE) };
        let max_size = u32::try_from(driver_max).unwrap_or(0).min(MAX_TARGET_SIZE);
        validate_size(config.width, config.height, max_size)?;
        let offscreen = create_framebuffer(&gl, config.width, config.height)?;

        let parts = Parts {
            surface,
            gl,
            offscreen: Some(offscreen),
            width: config.width,
            height: config.height,
            max_size,
            vsync: false,
            id: next_context_id(),
        };
        let ctx = CurrentGlContext::from_parts(current, parts);
        ctx.bind_target();
        ctx.check_gl_error("creating the offscreen framebuffer")?;
        Ok(ctx)
    }

    /// Refuses anything below desktop OpenGL 3.3.
    pub(crate) fn check_version(gl: &glow::Context) -> Result<()> {
        let v = gl.version();
        if v.is_embedded || (v.major, v.minor) < (3, 3) {
            return Err(Error::new(ErrorCode::Unsupported, CONTEXT_CREATE_FAILED)
                .with_field("GL_VERSION")
                .with_value(format!(
                    "{}{}.{}",
                    if v.is_embedded { "ES " } else { "" },
                    v.major,
                    v.minor
                ))
                .with_accepted("desktop OpenGL ≥ 3.3 core"));
        }
        Ok(())
    }

    /// An RGBA8 renderbuffer-backed framebuffer of `width × height`, bound.
    fn create_framebuffer(gl: &glow::Context, width: u32, height: u32) -> Result<Offscreen> {
        // SAFETY: the context is current on this thread; the size was
        // validated against the driver's renderbuffer limit.
        unsafe {
            let color = gl.create_renderbuffer().map_err(|e| {
                Error::new(ErrorCode::Failed, CONTEXT_CREATE_FAILED)
                    .with_detail(format!("glGenRenderbuffers: {e}"))
            })?;
            gl.bind_renderbuffer(glow::RENDERBUFFER, Some(color));
            gl.renderbuffer_storage(
                glow::RENDERBUFFER,
                glow::RGBA8,
                gl_i32(width),
                gl_i32(height),
            );
            gl.bind_renderbuffer(glow::RENDERBUFFER, None);
            let fbo = gl.create_framebuffer().map_err(|e| {
                gl.delete_renderbuffer(color);
                Error::new(ErrorCode::Failed, CONTEXT_CREATE_FAILED)
                    .with_detail(format!("glGenFramebuffers: {e}"))
            })?;
            gl.bind_framebuffer(glow::FRAMEBUFFER, Some(fbo));
            gl.framebuffer_renderbuffer(
                glow::FRAMEBUFFER,
                glow::COLOR_ATTACHMENT0,
                glow::RENDERBUFFER,
                Some(color),
            );
            let status = gl.check_framebuffer_status(glow::FRAMEBUFFER);
            if status != glow::FRAMEBUFFER_COMPLETE {
                gl.bind_framebuffer(glow::FRAMEBUFFER, None);
                gl.delete_framebuffer(fbo);
                gl.delete_renderbuffer(color);
                return Err(
                    Error::new(ErrorCode::Failed, CONTEXT_CREATE_FAILED).with_detail(format!(
                        "the offscreen framebuffer is incomplete (status 0x{status:04X})"
                    )),
                );
            }
            Ok(Offscreen { fbo, color })
        }
    }
}

#[cfg(not(all(any(windows, unix), not(target_vendor = "apple"))))]
mod imp {
    use laige_core::{Error, ErrorCode, Result};

    use super::{CurrentGlContext, HeadlessConfig};
    use crate::events::CONTEXT_CREATE_FAILED;

    pub(super) fn create(_config: &HeadlessConfig) -> Result<CurrentGlContext> {
        Err(Error::new(ErrorCode::Unsupported, CONTEXT_CREATE_FAILED)
            .with_detail("headless GL needs EGL, which this platform's glutin build does not have"))
    }
}

#[cfg(all(any(windows, unix), not(target_vendor = "apple")))]
pub(crate) use imp::check_version;

#[cfg(test)]
mod tests {
    use laige_core::ErrorCode;

    use super::*;

    #[test]
    fn zero_or_huge_size_is_rejected_before_touching_egl() {
        let e = CurrentGlContext::headless(&HeadlessConfig {
            width: 0,
            ..HeadlessConfig::default()
        })
        .unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidArgument);
        assert_eq!(e.field(), Some("width"));
        let e = CurrentGlContext::headless(&HeadlessConfig {
            height: MAX_TARGET_SIZE + 1,
            ..HeadlessConfig::default()
        })
        .unwrap_err();
        assert_eq!(e.field(), Some("height"));
        assert_eq!(e.value(), Some("16385"));
    }
}
