//! Windowed creation: a winit window and an OpenGL 3.3 core context on it,
//! from inside winit 0.30's `ApplicationHandler::resumed`.

#![allow(
    unsafe_code,
    reason = "glutin's display/surface/context constructors take raw platform handles"
)]

use laige_core::Result;
use winit::event_loop::ActiveEventLoop;
use winit::window::WindowAttributes;

use super::context::CurrentGlContext;

/// How to create a windowed context ([`CurrentGlContext::windowed`]).
#[derive(Clone, Debug)]
pub struct WindowedConfig {
    /// The winit window to open (title, size, resizable, ...). Default:
    /// winit's defaults with the title "laige".
    pub attributes: WindowAttributes,
    /// Swap interval 1 (vsync) when true, 0 when false. Default true, the
    /// usual windowed default (no tearing; the frame clock's deadline grid
    /// matches the display's refresh, [`CurrentGlContext::refresh_rate_hz`]).
    pub vsync: bool,
    /// On X11, try EGL before GLX (glutin-winit's `ApiPreference::PreferEgl`).
    /// Default false: GLX first, EGL as the fallback (glutin-winit's
    /// default). Wayland always uses EGL.
    pub prefer_egl: bool,
}

impl Default for WindowedConfig {
    fn default() -> Self {
        Self {
            attributes: WindowAttributes::default().with_title("laige"),
            vsync: true,
            prefer_egl: false,
        }
    }
}

impl CurrentGlContext {
    /// Opens a window on `event_loop` and creates an OpenGL 3.3 core context
    /// for it, current on the calling thread (the event-loop thread), with
    /// the swap interval of `config.vsync` applied. Call it from
    /// `ApplicationHandler::resumed`; hand the context to the render thread
    /// with [`release`](Self::release).
    ///
    /// The window and the surface live as long as the context; the event
    /// loop reaches the window through [`window`](Self::window) (a shared
    /// `Arc`), and a resize goes to the render thread, which calls
    /// [`resize`](Self::resize).
    ///
    /// # Errors
    ///
    /// `gl_context/create_failed`: `ErrorCode::Unsupported` when the
    /// platform has no display connection glutin can use, no matching config
    /// or no OpenGL 3.3 core (also on platforms other than X11 and Wayland,
    /// which this path does not cover yet); `ErrorCode::Failed` when opening
    /// the window or creating the surface fails, or when the window's inner
    /// size is zero. A swap-interval rejection is not fatal: the context is
    /// returned with [`vsync`](Self::vsync) reporting what is in effect.
    pub fn windowed(event_loop: &ActiveEventLoop, config: WindowedConfig) -> Result<Self> {
        imp::create(event_loop, config).map_err(laige_core::diag::reported)
    }
}

#[cfg(any(
    windows,
    all(unix, not(target_vendor = "apple"), not(target_os = "android"))
))]
mod imp {
    use std::ffi::CStr;
    use std::num::NonZeroU32;
    use std::sync::Arc;

    use glow::HasContext;
    use glutin::config::{Api, Config, ConfigTemplateBuilder, GlConfig};
    use glutin::context::{ContextApi, ContextAttributesBuilder, GlProfile, Version};
    use glutin::display::{Display, DisplayApiPreference, GlDisplay};
    use glutin::prelude::NotCurrentGlContext;
    use glutin::surface::{SurfaceAttributesBuilder, WindowSurface};
    use raw_window_handle::{HasDisplayHandle, HasWindowHandle};
    use winit::event_loop::ActiveEventLoop;
    use winit::window::{Window, WindowAttributes};

    use super::super::context::{
        BoundSurface, CurrentGlContext, MAX_TARGET_SIZE, Parts, next_context_id,
    };
    use super::super::headless::check_version;
    use crate::events::CONTEXT_CREATE_FAILED;
    use laige_core::{Error, ErrorCode, Result};

    use super::WindowedConfig;

    fn err(
        code: ErrorCode,
        detail: &'static str,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Error {
        Error::new(code, CONTEXT_CREATE_FAILED)
            .with_detail(detail)
            .with_source(source)
    }

    pub(super) fn create(
        event_loop: &ActiveEventLoop,
        config: WindowedConfig,
    ) -> Result<CurrentGlContext> {
        let (display, gl_config, window) = open(event_loop, config.attributes, config.prefer_egl)?;
        let size = window.inner_size();
        let (Some(w), Some(h)) = (NonZeroU32::new(size.width), NonZeroU32::new(size.height)) else {
            return Err(Error::new(ErrorCode::Failed, CONTEXT_CREATE_FAILED)
                .with_field("window inner size")
                .with_value(format!("{}x{}", size.width, size.height))
                .with_accepted("both sides ≥ 1 pixel"));
        };
        let raw_window = window
            .window_handle()
            .map_err(|e| err(ErrorCode::Failed, "the window has no native handle", e))?
            .as_raw();

        let attrs = ContextAttributesBuilder::new()
            .with_profile(GlProfile::Core)
            .with_context_api(ContextApi::OpenGl(Some(Version::new(3, 3))))
            .build(Some(raw_window));
        // SAFETY: `raw_window` belongs to `window`, which is alive here and
        // is kept alive beside the context for its whole life.
        let ctx = unsafe { display.create_context(&gl_config, &attrs) }.map_err(|e| {
            err(
                ErrorCode::Unsupported,
                "creating an OpenGL 3.3 core context",
                e,
            )
        })?;
        let surface_attrs =
            SurfaceAttributesBuilder::<WindowSurface>::new().build(raw_window, w, h);
        // SAFETY: as above, the native window outlives the surface (the
        // surface is declared before the window in `BoundSurface::Window`,
        // so it is dropped first).
        let surface = unsafe { display.create_window_surface(&gl_config, &surface_attrs) }
            .map_err(|e| err(ErrorCode::Failed, "creating the window surface", e))?;
        let current = ctx
            .make_current(&surface)
            .map_err(|e| err(ErrorCode::Failed, "binding the window surface", e))?;

        // SAFETY: the context is current on this thread (bound just above).
        let gl = unsafe {
            glow::Context::from_loader_function_cstr(|name: &CStr| display.get_proc_address(name))
        };
        check_version(&gl)?;
        // SAFETY: the context is current on this thread.
        let driver_max = unsafe { gl.get_parameter_i32(glow::MAX_RENDERBUFFER_SIZE) };
        let parts = Parts {
            surface: BoundSurface::Window {
                surface,
                window: Arc::new(window),
            },
            gl,
            offscreen: None,
            width: w.get(),
            height: h.get(),
            max_size: u32::try_from(driver_max).unwrap_or(0).min(MAX_TARGET_SIZE),
            vsync: false,
            id: next_context_id(),
        };
        let mut ctx = CurrentGlContext::from_parts(current, parts);
        ctx.bind_target();
        // A rejected interval is not fatal (some drivers and compositors
        // refuse it); set_vsync has reported it, and `vsync()` says what is
        // in effect.
        let _ = ctx.set_vsync(config.vsync);
        Ok(ctx)
    }

    /// X11 and Wayland: the display (GLX or EGL), its config, then the
    /// window for that config.
    #[cfg(unix)]
    fn open(
        event_loop: &ActiveEventLoop,
        attributes: WindowAttributes,
        prefer_egl: bool,
    ) -> Result<(Display, Config, Window)> {
        let raw_display = event_loop
            .display_handle()
            .map_err(|e| {
                err(
                    ErrorCode::Unsupported,
                    "the event loop has no display handle",
                    e,
                )
            })?
            .as_raw();
        let registrar = Box::new(winit::platform::x11::register_xlib_error_hook);
        let preference = if prefer_egl {
            DisplayApiPreference::EglThenGlx(registrar)
        } else {
            DisplayApiPreference::GlxThenEgl(registrar)
        };
        // SAFETY: `raw_display` comes from the live event loop, which
        // outlives this call and (the event loop owns the connection) the
        // returned context's use of it.
        let display = unsafe { Display::new(raw_display, preference) }
            .map_err(|e| err(ErrorCode::Unsupported, "opening a GLX or EGL display", e))?;

        let template = ConfigTemplateBuilder::new().with_api(Api::OPENGL).build();
        // SAFETY: the template carries no native window handle.
        let gl_config = pick(unsafe { display.find_configs(template) })?;

        let window = glutin_winit::finalize_window(event_loop, attributes, &gl_config)
            .map_err(|e| err(ErrorCode::Failed, "opening the window", e))?;
        Ok((display, gl_config, window))
    }

    /// Windows: WGL needs the window before its display and configs (the
    /// order glutin-winit follows there); EGL is the fallback.
    #[cfg(windows)]
    fn open(
        event_loop: &ActiveEventLoop,
        attributes: WindowAttributes,
        _prefer_egl: bool,
    ) -> Result<(Display, Config, Window)> {
        let window = event_loop
            .create_window(attributes)
            .map_err(|e| err(ErrorCode::Failed, "opening the window", e))?;
        let raw_window = window
            .window_handle()
            .map_err(|e| err(ErrorCode::Failed, "the window has no native handle", e))?
            .as_raw();
        let raw_display = event_loop
            .display_handle()
            .map_err(|e| {
                err(
                    ErrorCode::Unsupported,
                    "the event loop has no display handle",
                    e,
                )
            })?
            .as_raw();
        // SAFETY: `raw_display` and `raw_window` come from the live event
        // loop and window, which outlive the display (the window is kept
        // beside the context for its whole life).
        let display = unsafe {
            Display::new(
                raw_display,
                DisplayApiPreference::WglThenEgl(Some(raw_window)),
            )
        }
        .map_err(|e| err(ErrorCode::Unsupported, "opening a WGL or EGL display", e))?;
        let template = ConfigTemplateBuilder::new()
            .with_api(Api::OPENGL)
            .compatible_with_native_window(raw_window)
            .build();
        // SAFETY: the template's native window is `window`, alive here.
        let gl_config = pick(unsafe { display.find_configs(template) })?;
        Ok((display, gl_config, window))
    }

    /// An opaque config; the first one otherwise.
    fn pick(
        configs: std::result::Result<Box<dyn Iterator<Item = Config> + '_>, glutin::error::Error>,
    ) -> Result<Config> {
        configs
            .map_err(|e| err(ErrorCode::Unsupported, "finding an OpenGL window config", e))?
            .reduce(|best, c| {
                if best.supports_transparency() == Some(true)
                    && c.supports_transparency() != Some(true)
                {
                    c
                } else {
                    best
                }
            })
            .ok_or_else(|| {
                Error::new(ErrorCode::Unsupported, CONTEXT_CREATE_FAILED)
                    .with_detail("the display has no OpenGL window config")
            })
    }
}

#[cfg(not(any(
    windows,
    all(unix, not(target_vendor = "apple"), not(target_os = "android"))
)))]
mod imp {
    use winit::event_loop::ActiveEventLoop;

    use laige_core::{Error, ErrorCode, Result};

    use super::{CurrentGlContext, WindowedConfig};
    use crate::events::CONTEXT_CREATE_FAILED;

    pub(super) fn create(
        _event_loop: &ActiveEventLoop,
        _config: WindowedConfig,
    ) -> Result<CurrentGlContext> {
        Err(
            Error::new(ErrorCode::Unsupported, CONTEXT_CREATE_FAILED).with_detail(
                "windowed GL is implemented for X11, Wayland (Linux/BSD) and Windows only",
            ),
        )
    }
}
