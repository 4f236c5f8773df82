//! The GPU half of the sprite pipeline (the render thread's `submit`
//! stage): upload the batcher's instances into one streaming buffer and
//! draw each batch as one instanced call of textured, colored quads.
//!
//! GL state the renderer owns: one program (`shaders/`: GLSL 330 core on a desktop,
//! GLSL ES 3.00 on WebGL2 — one body, the context's header),
//! one vertex array whose six instanced attributes read
//! [`SpriteInstance`]s, one instance buffer (grown to the next power of two,
//! orphaned every frame), and the textures (index 0: opaque 1×1 white).
//!
//! **Blending is premultiplied alpha** (`ONE, ONE_MINUS_SRC_ALPHA` for
//! colour and alpha): texels are premultiplied when an [`Image`](super::Image) is made,
//! the sprite's straight colour is premultiplied in the fragment shader.
//! Drawing `(r, g, b, a)` over `d` gives `(r, g, b)·a + d·(1 − a)`, the
//! same as straight-alpha blending for a flat colour, and linear filtering
//! of a transparent edge does not darken it.
//!
//! **The view on the target** follows the [`ViewPolicy`]: stretched over
//! the whole target, or letterboxed (the largest centred rectangle of the
//! view's aspect, the rest filled with bars). [`Space::Screen`] sprites
//! always use the whole target in logical pixels (physical ÷ the scale
//! factor).

#![allow(unsafe_code, reason = "glow's GL entry points are unsafe FFI")]

use crate::events::{
    CONTEXT_MISMATCH, RENDERER_CREATE_FAILED, SCALE_INVALID, SHADER_FAILED, TEXTURE_INVALID,
    TEXTURE_UNKNOWN, TEXTURE_UPLOAD_FAILED,
};
use glow::HasContext;
use laige_core::{Error, ErrorCode, Result};

use super::batcher::{Space, SpriteBatcher, SpriteInstance, TextureId, ViewRect};
use super::context::{CurrentGlContext, gl_i32};
use super::texture_queue::{PendingTexture, TextureQueue};

const VERTEX_SHADER: &str = include_str!("shaders/sprite.vert");
const FRAGMENT_SHADER: &str = include_str!("shaders/sprite.frag");

/// Instance stride in bytes (56).
const STRIDE: usize = size_of::<SpriteInstance>();

/// How a texture is sampled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TextureFilter {
    /// Nearest texel — the default: pixel art stays crisp and the tests'
    /// pixels stay exact.
    #[default]
    Nearest,
    /// Bilinear.
    Linear,
}

/// Options of [`SpriteRenderer::upload_texture`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TextureOptions {
    /// Minification and magnification filter. Wrapping is always
    /// clamp-to-edge (a sprite region never wraps).
    pub filter: TextureFilter,
}

/// How the world view is placed on the target.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum ViewPolicy {
    /// The view covers the whole target, stretched when the aspects differ
    /// — the default (a target sized to the view shows it exactly).
    #[default]
    Stretch,
    /// The view keeps its aspect: it fills the largest centred rectangle of
    /// its aspect (whole pixels), and the bars left and right (or above
    /// and below) are filled with `bar_color` (straight RGBA).
    Letterbox {
        /// The bars' colour.
        bar_color: [f32; 4],
    },
}

/// The pixel rectangle `(x, y, width, height)` (from the bottom-left) the
/// view occupies on a `target` of `(width, height)` pixels under `policy`.
///
/// ```
/// use laige_render::gl::{ViewPolicy, ViewRect, view_viewport};
/// let view = ViewRect::new(0.0, 0.0, 320.0, 180.0)?; // 16:9
/// let letterbox = ViewPolicy::Letterbox { bar_color: [0.0; 4] };
/// assert_eq!(view_viewport(view, (400, 400), letterbox), (0, 87, 400, 225));
/// assert_eq!(view_viewport(view, (400, 400), ViewPolicy::Stretch), (0, 0, 400, 400));
/// # Ok::<(), laige_core::Error>(())
/// ```
#[must_use]
pub fn view_viewport(
    view: ViewRect,
    target: (u32, u32),
    policy: ViewPolicy,
) -> (u32, u32, u32, u32) {
    let (w, h) = target;
    if matches!(policy, ViewPolicy::Stretch) || w == 0 || h == 0 {
        return (0, 0, w, h);
    }
    let (min, max) = (view.min(), view.max());
    let aspect = f64::from(max[0] - min[0]) / f64::from(max[1] - min[1]);
    let (fw, fh) = (f64::from(w), f64::from(h));
    if fw / fh > aspect {
        // Wider than the view: bars left and right.
        let vw = ((fh * aspect).round() as u32).clamp(1, w);
        ((w - vw) / 2, 0, vw, h)
    } else {
        let vh = ((fw / aspect).round() as u32).clamp(1, h);
        (0, (h - vh) / 2, w, vh)
    }
}

/// What one [`SpriteRenderer::draw`] submitted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DrawStats {
    /// Instanced draw calls issued (one per batch).
    pub draw_calls: u32,
    /// Quads drawn.
    pub instances: u32,
}

/// Draws a [`SpriteBatcher`]'s output through glow.
///
/// Created on a [`CurrentGlContext`] and usable only with that same context
/// (on whatever thread it is current). GL objects cannot be freed from
/// `Drop` (that needs the current context): call
/// [`destroy`](Self::destroy) before releasing or dropping the context; a
/// renderer merely dropped leaks its objects until the context is destroyed.
#[derive(Debug)]
pub struct SpriteRenderer {
    context_id: u64,
    program: glow::Program,
    vao: glow::VertexArray,
    instance_buffer: glow::Buffer,
    buffer_capacity: usize,
    u_scale: Option<glow::UniformLocation>,
    u_offset: Option<glow::UniformLocation>,
    /// By id; `None` for an id whose upload the driver refused (drawn as
    /// the white texture, index 0).
    textures: Vec<Option<glow::Texture>>,
    max_texture_size: u32,
    queue: Option<TextureQueue>,
    /// Textures taken from the queue, uploaded, then dropped (reused).
    taken: Vec<PendingTexture>,
    policy: ViewPolicy,
    scale_factor: f32,
}

impl SpriteRenderer {
    /// Compiles the shaders and creates the vertex array, the instance
    /// buffer and the white texture on `ctx`.
    ///
    /// # Errors
    ///
    /// `sprite_renderer/shader_failed` (`Failed`, the driver's info log in
    /// the detail) or `sprite_renderer/create_failed` (`Failed`).
    pub fn new(ctx: &CurrentGlContext) -> Result<Self> {
        let gl = ctx.gl();
        let program = compile_program(gl, ctx.glsl_header())?;
        // SAFETY: `ctx` is current on this thread (its type invariant);
        // every object used is created just above on this context.
        let mut renderer = unsafe {
            let u_scale = gl.get_uniform_location(program, "u_scale");
            let u_offset = gl.get_uniform_location(program, "u_offset");
            gl.use_program(Some(program));
            if let Some(loc) = gl.get_uniform_location(program, "u_texture") {
                gl.uniform_1_i32(Some(&loc), 0);
            }
            gl.use_program(None);
            let vao = gl.create_vertex_array().map_err(|e| {
                gl.delete_program(program);
                create_failed("glGenVertexArrays", e)
            })?;
            let instance_buffer = gl.create_buffer().map_err(|e| {
                gl.delete_vertex_array(vao);
                gl.delete_program(program);
                create_failed("glGenBuffers", e)
            })?;
            gl.bind_vertex_array(Some(vao));
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(instance_buffer));
            for loc in 0..6 {
                gl.enable_vertex_attrib_array(loc);
                gl.vertex_attrib_divisor(loc, 1);
            }
            gl.bind_vertex_array(None);
            gl.bind_buffer(glow::ARRAY_BUFFER, None);
            let max_texture_size =
                u32::try_from(gl.get_parameter_i32(glow::MAX_TEXTURE_SIZE)).unwrap_or(0);
            Self {
                context_id: ctx.id(),
                program,
                vao,
                instance_buffer,
                buffer_capacity: 0,
                u_scale,
                u_offset,
                textures: Vec::new(),
                max_texture_size,
                queue: None,
                taken: Vec::new(),
                policy: ViewPolicy::default(),
                scale_factor: 1.0,
            }
        };
        // The first upload of a fresh renderer is index 0: TextureId::WHITE.
        if let Err(e) = renderer.upload_texture(ctx, 1, 1, &[255; 4], TextureOptions::default()) {
            renderer.destroy(ctx);
            return Err(e);
        }
        ctx.check_gl_error("creating the sprite renderer")?;
        Ok(renderer)
    }

    /// Uploads an RGBA8 texture (`rgba`: `width × height × 4` bytes,
    /// **premultiplied alpha** — opaque texels are the same either way —
    /// rows in image order, the top row first) and returns its id, the next
    /// index in upload order. [`Image`](super::Image) premultiplies for you.
    ///
    /// # Errors
    ///
    /// `sprite_renderer/texture_invalid` (`InvalidArgument`): a zero side,
    /// a side above the driver's `GL_MAX_TEXTURE_SIZE`, or a data length
    /// that is not `width × height × 4`. `sprite_renderer/context_mismatch`
    /// (`InvalidArgument`) for a context other than the renderer's.
    pub fn upload_texture(
        &mut self,
        ctx: &CurrentGlContext,
        width: u32,
        height: u32,
        rgba: &[u8],
        options: TextureOptions,
    ) -> Result<TextureId> {
        self.check_context(ctx)?;
        let id = u32::try_from(self.textures.len()).map_err(|_| {
            Error::new(ErrorCode::OutOfRange, TEXTURE_INVALID)
                .with_detail("more than u32::MAX textures")
        })?;
        let texture = self.create_texture(ctx, width, height, rgba, options)?;
        self.textures.push(Some(texture));
        Ok(TextureId::from_index(id))
    }

    /// Takes its textures from `queue` from now on: every [`draw`](Self::draw)
    /// first uploads what the queue holds (one atomic load when nothing
    /// waits). The queue's ids start at 1, like direct uploads: do not mix
    /// the two on one renderer.
    pub fn attach_texture_queue(&mut self, queue: TextureQueue) {
        self.queue = Some(queue);
    }

    /// Uploads the attached queue's waiting textures now (`draw` does it
    /// too) and returns how many it took. A texture the driver refuses is
    /// logged (`sprite_renderer/texture_upload_failed`, Error) and its id
    /// draws as the white texture; the render thread goes on.
    ///
    /// # Errors
    ///
    /// `sprite_renderer/context_mismatch` for another context.
    pub fn upload_queued(&mut self, ctx: &CurrentGlContext) -> Result<usize> {
        self.check_context(ctx)?;
        let Some(queue) = &self.queue else {
            return Ok(0);
        };
        queue.take_into(&mut self.taken);
        if self.taken.is_empty() {
            return Ok(0);
        }
        let mut taken = std::mem::take(&mut self.taken);
        let n = taken.len();
        for p in taken.drain(..) {
            let index = p.id.index() as usize;
            if self.textures.len() <= index {
                self.textures.resize(index + 1, None);
            }
            match self.create_texture(
                ctx,
                p.image.width(),
                p.image.height(),
                p.image.texels(),
                p.options,
            ) {
                Ok(t) => {
                    if let Some(old) = self.textures[index].replace(t) {
                        // SAFETY: `ctx` is current and is this renderer's
                        // context (checked above); `old` is replaced and not
                        // used again.
                        unsafe { ctx.gl().delete_texture(old) };
                    }
                }
                Err(e) => {
                    // The boundary that decides: log and draw white.
                    laige_core::event!(
                        Error,
                        TEXTURE_UPLOAD_FAILED,
                        texture = p.id.index(),
                        error = %e
                    );
                }
            }
        }
        self.taken = taken;
        Ok(n)
    }

    /// Sets how the world view is placed on the target (default
    /// [`ViewPolicy::Stretch`]).
    pub fn set_view_policy(&mut self, policy: ViewPolicy) {
        self.policy = policy;
    }

    /// The view policy.
    #[must_use]
    pub fn view_policy(&self) -> ViewPolicy {
        self.policy
    }

    /// Sets the monitor's scale factor (physical pixels per logical pixel):
    /// [`Space::Screen`] sprites are laid out in logical pixels, so a HUD
    /// keeps its size on a high-DPI monitor. Default 1.
    ///
    /// # Errors
    ///
    /// `sprite_renderer/scale_factor_invalid` (`InvalidArgument`) unless
    /// finite and in `0.25..=16` (the range of real monitors, with room).
    pub fn set_scale_factor(&mut self, scale: f32) -> Result<()> {
        if !(0.25..=16.0).contains(&scale) {
            return Err(Error::invalid_argument(
                SCALE_INVALID,
                "scale_factor",
                scale,
                "0.25..=16.0",
            ));
        }
        self.scale_factor = scale;
        Ok(())
    }

    /// The scale factor (physical pixels per logical pixel).
    #[must_use]
    pub fn scale_factor(&self) -> f32 {
        self.scale_factor
    }

    fn create_texture(
        &self,
        ctx: &CurrentGlContext,
        width: u32,
        height: u32,
        rgba: &[u8],
        options: TextureOptions,
    ) -> Result<glow::Texture> {
        // Validation errors come back unreported: the caller reports once.
        super::image::check_rgba_size(
            TEXTURE_INVALID,
            (
                width,
                height,
                self.max_texture_size,
                " (the driver's GL_MAX_TEXTURE_SIZE)",
            ),
            ("rgba.len()", rgba.len()),
        )?;
        let filter = match options.filter {
            TextureFilter::Nearest => glow::NEAREST,
            TextureFilter::Linear => glow::LINEAR,
        } as i32;
        let gl = ctx.gl();
        // SAFETY: `ctx` is current on this thread (type invariant) and is
        // this renderer's context (checked); `rgba` holds exactly
        // width × height × 4 bytes and the unpack alignment is 1, so GL
        // reads inside the slice.
        let texture = unsafe {
            let texture = gl
                .create_texture()
                .map_err(|e| create_failed("glGenTextures", e))?;
            gl.bind_texture(glow::TEXTURE_2D, Some(texture));
            gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MIN_FILTER, filter);
            gl.tex_parameter_i32(glow::TEXTURE_2D, glow::TEXTURE_MAG_FILTER, filter);
            gl.tex_parameter_i32(
                glow::TEXTURE_2D,
                glow::TEXTURE_WRAP_S,
                glow::CLAMP_TO_EDGE as i32,
            );
            gl.tex_parameter_i32(
                glow::TEXTURE_2D,
                glow::TEXTURE_WRAP_T,
                glow::CLAMP_TO_EDGE as i32,
            );
            gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 1);
            gl.tex_image_2d(
                glow::TEXTURE_2D,
                0,
                glow::RGBA8 as i32,
                gl_i32(width),
                gl_i32(height),
                0,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                glow::PixelUnpackData::Slice(Some(rgba)),
            );
            gl.bind_texture(glow::TEXTURE_2D, None);
            texture
        };
        if let Err(e) = ctx.check_gl_error("uploading a texture") {
            // SAFETY: as above; the texture was created just now on `ctx`.
            unsafe { gl.delete_texture(texture) };
            return Err(e);
        }
        Ok(texture)
    }

    /// How many textures the renderer holds (the white one included).
    #[must_use]
    pub fn texture_count(&self) -> u32 {
        u32::try_from(self.textures.len()).unwrap_or(u32::MAX)
    }

    /// Clears the whole target to `rgba` (straight alpha, `0.0..=1.0`).
    ///
    /// # Errors
    ///
    /// `sprite_renderer/context_mismatch` for another context.
    pub fn clear(&self, ctx: &CurrentGlContext, rgba: [f32; 4]) -> Result<()> {
        self.check_context(ctx)?;
        ctx.bind_target();
        // SAFETY: `ctx` is current on this thread and is this renderer's context.
        unsafe {
            let gl = ctx.gl();
            gl.clear_color(rgba[0], rgba[1], rgba[2], rgba[3]);
            gl.clear(glow::COLOR_BUFFER_BIT);
        }
        Ok(())
    }

    /// Uploads the queued textures, then `batcher`'s instances, and draws
    /// its batches in order, one instanced call each: world batches with
    /// the orthographic projection of the batcher's view onto the
    /// [`ViewPolicy`]'s rectangle (letterbox bars filled first), screen
    /// batches over the whole target in logical pixels. Blending:
    /// premultiplied alpha (`ONE, ONE_MINUS_SRC_ALPHA`). No depth test, no
    /// face culling (a mirrored sprite has the other winding).
    ///
    /// Allocates nothing; the instance buffer grows (to the next power of
    /// two) only when a frame has more instances than any before.
    ///
    /// # Errors
    ///
    /// `sprite_renderer/context_mismatch` (another context),
    /// `sprite_renderer/texture_unknown` (a batch names a texture this
    /// renderer did not issue; checked before anything is drawn), or
    /// `gl_context/gl_error` (GL reported an error). A batcher without a
    /// successful build draws nothing.
    pub fn draw(&mut self, ctx: &CurrentGlContext, batcher: &SpriteBatcher) -> Result<DrawStats> {
        self.upload_queued(ctx)?;
        let Some(view) = batcher.view() else {
            return Ok(DrawStats::default());
        };
        let batches = batcher.batches();
        let n_textures = self.textures.len();
        if let Some(bad) = batches
            .iter()
            .find(|b| b.texture.index() as usize >= n_textures)
        {
            return Err(Error::invalid_argument(
                TEXTURE_UNKNOWN,
                "batch texture",
                bad.texture.index(),
                format!("0..{n_textures} (the textures this renderer issued)"),
            ));
        }
        let gl = ctx.gl();
        ctx.bind_target();
        let target = ctx.size();
        let world_vp = view_viewport(view, target, self.policy);
        if let ViewPolicy::Letterbox { bar_color } = self.policy {
            fill_bars(gl, target, world_vp, bar_color);
        }
        let instances = batcher.instances();
        if instances.is_empty() {
            return Ok(DrawStats::default());
        }
        let bytes = instance_bytes(instances);
        let world = projection(view);
        let screen_view = ViewRect::new(
            0.0,
            0.0,
            target.0 as f32 / self.scale_factor,
            target.1 as f32 / self.scale_factor,
        )?;
        let screen = projection(screen_view);
        // SAFETY: `ctx` is current on this thread (type invariant) and is
        // this renderer's context (checked), so every object name is valid
        // in it. The buffer is (re)allocated to at least `bytes.len()` before
        // the sub-data upload, and every batch lies inside the instance array
        // (the batcher's invariant: first + count ≤ instances.len()), so the
        // attribute offsets and instance counts read inside the buffer.
        unsafe {
            gl.use_program(Some(self.program));
            gl.disable(glow::DEPTH_TEST);
            gl.disable(glow::CULL_FACE);
            gl.enable(glow::BLEND);
            gl.blend_func(glow::ONE, glow::ONE_MINUS_SRC_ALPHA);
            gl.active_texture(glow::TEXTURE0);
            gl.bind_vertex_array(Some(self.vao));
            gl.bind_buffer(glow::ARRAY_BUFFER, Some(self.instance_buffer));
            if bytes.len() > self.buffer_capacity {
                // ≤ MAX_SPRITES_PER_FRAME × 52 < 2^30: the power of two fits i32.
                self.buffer_capacity = bytes.len().next_power_of_two();
            }
            // Orphan the old storage (the GPU may still read it) and upload.
            gl.buffer_data_size(
                glow::ARRAY_BUFFER,
                usize_i32(self.buffer_capacity),
                glow::STREAM_DRAW,
            );
            gl.buffer_sub_data_u8_slice(glow::ARRAY_BUFFER, 0, bytes);
            let mut bound_texture = None;
            let mut bound_space = None;
            for batch in batches {
                if bound_space != Some(batch.space) {
                    let ((scale, offset), (x, y, w, h)) = match batch.space {
                        Space::World => (world, world_vp),
                        Space::Screen => (screen, (0, 0, target.0, target.1)),
                    };
                    gl.viewport(gl_i32(x), gl_i32(y), gl_i32(w), gl_i32(h));
                    gl.uniform_2_f32(self.u_scale.as_ref(), scale[0], scale[1]);
                    gl.uniform_2_f32(self.u_offset.as_ref(), offset[0], offset[1]);
                    bound_space = Some(batch.space);
                }
                // Checked above: every batch's index is below textures.len();
                // a refused upload (None) draws as white.
                let texture = self.textures[batch.texture.index() as usize].or(self.textures[0]);
                if bound_texture != texture {
                    gl.bind_texture(glow::TEXTURE_2D, texture);
                    bound_texture = texture;
                }
                let base = batch.first as usize * STRIDE;
                let stride = usize_i32(STRIDE);
                gl.vertex_attrib_pointer_f32(0, 2, glow::FLOAT, false, stride, usize_i32(base));
                gl.vertex_attrib_pointer_f32(1, 2, glow::FLOAT, false, stride, usize_i32(base + 8));
                gl.vertex_attrib_pointer_f32(
                    2,
                    1,
                    glow::FLOAT,
                    false,
                    stride,
                    usize_i32(base + 16),
                );
                gl.vertex_attrib_pointer_f32(
                    3,
                    4,
                    glow::FLOAT,
                    false,
                    stride,
                    usize_i32(base + 20),
                );
                gl.vertex_attrib_pointer_f32(
                    4,
                    4,
                    glow::FLOAT,
                    false,
                    stride,
                    usize_i32(base + 36),
                );
                gl.vertex_attrib_pointer_f32(
                    5,
                    1,
                    glow::FLOAT,
                    false,
                    stride,
                    usize_i32(base + 52),
                );
                gl.draw_arrays_instanced(glow::TRIANGLE_STRIP, 0, 4, gl_i32(batch.count));
            }
            gl.bind_vertex_array(None);
            gl.bind_buffer(glow::ARRAY_BUFFER, None);
            gl.bind_texture(glow::TEXTURE_2D, None);
            gl.use_program(None);
            gl.viewport(0, 0, gl_i32(target.0), gl_i32(target.1));
        }
        ctx.check_gl_error("drawing sprites")?;
        Ok(DrawStats {
            draw_calls: u32::try_from(batches.len()).unwrap_or(u32::MAX),
            instances: u32::try_from(instances.len()).unwrap_or(u32::MAX),
        })
    }

    /// Deletes the renderer's GL objects. Call it while its context is
    /// current (before [`CurrentGlContext::release`] at the end, or before
    /// dropping the context). With another context it deletes nothing (the
    /// names are not that context's) and the objects live until their own
    /// context is destroyed.
    pub fn destroy(self, ctx: &CurrentGlContext) {
        if self.check_context(ctx).is_err() {
            return;
        }
        let gl = ctx.gl();
        // SAFETY: `ctx` is current on this thread and is the context that
        // created every name deleted here; `self` is consumed, so no name is
        // used afterwards.
        unsafe {
            for t in self.textures.iter().flatten() {
                gl.delete_texture(*t);
            }
            gl.delete_buffer(self.instance_buffer);
            gl.delete_vertex_array(self.vao);
            gl.delete_program(self.program);
        }
    }

    fn check_context(&self, ctx: &CurrentGlContext) -> Result<()> {
        if ctx.id() == self.context_id {
            Ok(())
        } else {
            Err(Error::new(ErrorCode::InvalidArgument, CONTEXT_MISMATCH)
                .with_field("ctx")
                .with_detail("a SpriteRenderer draws only on the context it was created on"))
        }
    }
}

/// The projection `clip = world × scale + offset` mapping `view` onto
/// `[-1, 1]²` (min → -1, max → +1).
fn projection(view: ViewRect) -> ([f32; 2], [f32; 2]) {
    let (min, max) = (view.min(), view.max());
    let sx = 2.0 / (max[0] - min[0]);
    let sy = 2.0 / (max[1] - min[1]);
    (
        [sx, sy],
        [
            -(max[0] + min[0]) / (max[0] - min[0]),
            -(max[1] + min[1]) / (max[1] - min[1]),
        ],
    )
}

/// Fills the target outside `vp` with `color` (scissored clears).
fn fill_bars(gl: &glow::Context, target: (u32, u32), vp: (u32, u32, u32, u32), color: [f32; 4]) {
    let (tw, th) = target;
    let (x, y, w, h) = vp;
    let bars = [
        (0, 0, x, th),                // left
        (x + w, 0, tw - (x + w), th), // right
        (x, 0, w, y),                 // below
        (x, y + h, w, th - (y + h)),  // above
    ];
    // SAFETY: every caller holds the current context (a CurrentGlContext
    // checked against the renderer); the rectangles lie inside the target.
    unsafe {
        gl.enable(glow::SCISSOR_TEST);
        gl.clear_color(
            color[0] * color[3],
            color[1] * color[3],
            color[2] * color[3],
            color[3],
        );
        for (bx, by, bw, bh) in bars {
            if bw > 0 && bh > 0 {
                gl.scissor(gl_i32(bx), gl_i32(by), gl_i32(bw), gl_i32(bh));
                gl.clear(glow::COLOR_BUFFER_BIT);
            }
        }
        gl.disable(glow::SCISSOR_TEST);
    }
}

/// The instances as the bytes GL uploads.
fn instance_bytes(instances: &[SpriteInstance]) -> &[u8] {
    // SAFETY: SpriteInstance is #[repr(C)] and consists of 14 f32 fields
    // with no padding (size 56 = 14 × 4, asserted at compile time in
    // batcher.rs), so every byte of the slice is initialized; u8 has
    // alignment 1, and the length in bytes is len × 52, which is within the
    // same allocation.
    unsafe {
        std::slice::from_raw_parts(
            instances.as_ptr().cast::<u8>(),
            std::mem::size_of_val(instances),
        )
    }
}

fn usize_i32(v: usize) -> i32 {
    i32::try_from(v).unwrap_or(i32::MAX)
}

fn create_failed(what: &'static str, e: String) -> Error {
    Error::new(ErrorCode::Failed, RENDERER_CREATE_FAILED).with_detail(format!("{what}: {e}"))
}

fn compile_program(gl: &glow::Context, header: &str) -> Result<glow::Program> {
    // SAFETY: the caller's context is current on this thread (every caller
    // holds a CurrentGlContext); every name used is created here.
    unsafe {
        let program = gl
            .create_program()
            .map_err(|e| create_failed("glCreateProgram", e))?;
        let mut shaders = Vec::with_capacity(2);
        for (kind, src, name) in [
            (glow::VERTEX_SHADER, VERTEX_SHADER, "sprite.vert"),
            (glow::FRAGMENT_SHADER, FRAGMENT_SHADER, "sprite.frag"),
        ] {
            let shader = match gl.create_shader(kind) {
                Ok(s) => s,
                Err(e) => {
                    cleanup(gl, program, &shaders);
                    return Err(create_failed("glCreateShader", e));
                }
            };
            gl.shader_source(shader, &format!("{header}{src}"));
            gl.compile_shader(shader);
            shaders.push(shader);
            if !gl.get_shader_compile_status(shader) {
                let log = gl.get_shader_info_log(shader);
                cleanup(gl, program, &shaders);
                return Err(Error::new(ErrorCode::Failed, SHADER_FAILED)
                    .with_field(name)
                    .with_detail(format!("compile failed: {}", log.trim())));
            }
            gl.attach_shader(program, shader);
        }
        gl.link_program(program);
        let linked = gl.get_program_link_status(program);
        let log = if linked {
            String::new()
        } else {
            gl.get_program_info_log(program)
        };
        for s in &shaders {
            gl.detach_shader(program, *s);
            gl.delete_shader(*s);
        }
        if !linked {
            gl.delete_program(program);
            return Err(Error::new(ErrorCode::Failed, SHADER_FAILED)
                .with_detail(format!("link failed: {}", log.trim())));
        }
        Ok(program)
    }
}

/// Deletes a half-built program and its shaders.
///
/// # Safety
///
/// The names' context must be current on this thread.
unsafe fn cleanup(gl: &glow::Context, program: glow::Program, shaders: &[glow::Shader]) {
    // SAFETY: the caller guarantees the context is current; the names are its.
    unsafe {
        for s in shaders {
            gl.delete_shader(*s);
        }
        gl.delete_program(program);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projection_maps_the_view_onto_clip_space() {
        let (s, o) = projection(ViewRect::new(0.0, 0.0, 64.0, 32.0).unwrap());
        assert_eq!((0.0 * s[0] + o[0], 64.0 * s[0] + o[0]), (-1.0, 1.0));
        assert_eq!((0.0 * s[1] + o[1], 32.0 * s[1] + o[1]), (-1.0, 1.0));
        let (s, o) = projection(ViewRect::new(-10.0, 100.0, 10.0, 300.0).unwrap());
        assert_eq!(
            (-10.0 * s[0] + o[0], 10.0 * s[0] + o[0], 0.0 * s[0] + o[0]),
            (-1.0, 1.0, 0.0)
        );
        assert_eq!((100.0 * s[1] + o[1], 300.0 * s[1] + o[1]), (-1.0, 1.0));
    }

    #[test]
    fn instance_bytes_are_the_fields_in_order() {
        let i = SpriteInstance {
            position: [1.0, 2.0],
            size: [3.0, 4.0],
            rotation: 5.0,
            color: [6.0, 7.0, 8.0, 9.0],
            uv_rect: [10.0, 11.0, 12.0, 13.0],
            shape: 14.0,
        };
        let bytes = instance_bytes(std::slice::from_ref(&i));
        assert_eq!(bytes.len(), 56);
        let floats: Vec<f32> = bytes
            .chunks_exact(4)
            .map(|c| f32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        assert_eq!(floats, (1..=14).map(|v| v as f32).collect::<Vec<_>>());
    }
}
