//! The GPU half of the sprite pipeline (the render thread's `submit`
//! stage): upload the batcher's instances into one streaming buffer and
//! draw each batch as one instanced call of textured, colored quads.
//!
//! GL state the renderer owns: one program (GLSL 330 core, `shaders/`),
//! one vertex array whose five instanced attributes read
//! [`SpriteInstance`]s, one instance buffer (grown to the next power of two,
//! orphaned every frame), and the textures (index 0: opaque 1×1 white).

#![allow(unsafe_code, reason = "glow's GL entry points are unsafe FFI")]

use glow::HasContext;
use laige_core::{Error, ErrorCode, EventId, Result};

use super::batcher::{SpriteBatcher, SpriteInstance, TextureId, ViewRect};
use super::context::{CurrentGlContext, gl_i32};

/// Compiling or linking the sprite shaders failed (the info log is the detail).
const SHADER_FAILED: EventId = EventId::new("sprite_renderer", "shader_failed");
/// Creating a GL object failed.
const CREATE_FAILED: EventId = EventId::new("sprite_renderer", "create_failed");
/// The renderer was used with a context it was not created on.
const CONTEXT_MISMATCH: EventId = EventId::new("sprite_renderer", "context_mismatch");
/// A batch names a texture this renderer did not issue.
const TEXTURE_UNKNOWN: EventId = EventId::new("sprite_renderer", "texture_unknown");
/// A texture upload with a bad size or data length.
const TEXTURE_INVALID: EventId = EventId::new("sprite_renderer", "texture_invalid");

const VERTEX_SHADER: &str = include_str!("shaders/sprite.vert");
const FRAGMENT_SHADER: &str = include_str!("shaders/sprite.frag");

/// Instance stride in bytes (52).
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
    program: glow::NativeProgram,
    vao: glow::NativeVertexArray,
    instance_buffer: glow::NativeBuffer,
    buffer_capacity: usize,
    u_scale: Option<glow::NativeUniformLocation>,
    u_offset: Option<glow::NativeUniformLocation>,
    textures: Vec<glow::NativeTexture>,
    max_texture_size: u32,
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
        let program = compile_program(gl)?;
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
            for loc in 0..5 {
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

    /// Uploads an RGBA8 texture (`rgba`: `width × height × 4` bytes, rows
    /// in image order — the top row first) and returns its id, the next
    /// index in upload order.
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
        let max = self.max_texture_size;
        for (field, v) in [("width", width), ("height", height)] {
            if v == 0 || v > max {
                return Err(Error::invalid_argument(
                    TEXTURE_INVALID,
                    field,
                    v,
                    format!("1..={max} (the driver's GL_MAX_TEXTURE_SIZE)"),
                ));
            }
        }
        // Both ≤ MAX_TEXTURE_SIZE (≤ 2^15 on any driver): no overflow.
        let expected = width as usize * height as usize * 4;
        if rgba.len() != expected {
            return Err(Error::invalid_argument(
                TEXTURE_INVALID,
                "rgba.len()",
                rgba.len(),
                format!("width × height × 4 = {expected} bytes"),
            ));
        }
        let id = u32::try_from(self.textures.len()).map_err(|_| {
            Error::new(ErrorCode::OutOfRange, TEXTURE_INVALID)
                .with_detail("more than u32::MAX textures")
        })?;
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
        self.textures.push(texture);
        Ok(TextureId::from_index(id))
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

    /// Uploads `batcher`'s instances and draws its batches in order, one
    /// instanced call each, with the orthographic projection of the
    /// batcher's view onto the whole target. Blending: straight alpha
    /// (`SRC_ALPHA, ONE_MINUS_SRC_ALPHA`; destination alpha accumulates
    /// with `ONE, ONE_MINUS_SRC_ALPHA`). No depth test, no face culling (a
    /// mirrored sprite has the other winding).
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
        self.check_context(ctx)?;
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
        let instances = batcher.instances();
        if instances.is_empty() {
            return Ok(DrawStats::default());
        }
        let bytes = instance_bytes(instances);
        let (scale, offset) = projection(view);
        let gl = ctx.gl();
        ctx.bind_target();
        // SAFETY: `ctx` is current on this thread (type invariant) and is
        // this renderer's context (checked), so every object name is valid
        // in it. The buffer is (re)allocated to at least `bytes.len()` before
        // the sub-data upload, and every batch lies inside the instance array
        // (the batcher's invariant: first + count ≤ instances.len()), so the
        // attribute offsets and instance counts read inside the buffer.
        unsafe {
            gl.use_program(Some(self.program));
            gl.uniform_2_f32(self.u_scale.as_ref(), scale[0], scale[1]);
            gl.uniform_2_f32(self.u_offset.as_ref(), offset[0], offset[1]);
            gl.disable(glow::DEPTH_TEST);
            gl.disable(glow::CULL_FACE);
            gl.enable(glow::BLEND);
            gl.blend_func_separate(
                glow::SRC_ALPHA,
                glow::ONE_MINUS_SRC_ALPHA,
                glow::ONE,
                glow::ONE_MINUS_SRC_ALPHA,
            );
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
            for batch in batches {
                let texture = self.textures[batch.texture.index() as usize];
                if bound_texture != Some(texture) {
                    gl.bind_texture(glow::TEXTURE_2D, Some(texture));
                    bound_texture = Some(texture);
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
                gl.draw_arrays_instanced(glow::TRIANGLE_STRIP, 0, 4, gl_i32(batch.count));
            }
            gl.bind_vertex_array(None);
            gl.bind_buffer(glow::ARRAY_BUFFER, None);
            gl.bind_texture(glow::TEXTURE_2D, None);
            gl.use_program(None);
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
            for t in &self.textures {
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

/// The instances as the bytes GL uploads.
fn instance_bytes(instances: &[SpriteInstance]) -> &[u8] {
    // SAFETY: SpriteInstance is #[repr(C)] and consists of 13 f32 fields
    // with no padding (size 52 = 13 × 4, asserted at compile time in
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
    Error::new(ErrorCode::Failed, CREATE_FAILED).with_detail(format!("{what}: {e}"))
}

fn compile_program(gl: &glow::Context) -> Result<glow::NativeProgram> {
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
            gl.shader_source(shader, src);
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
unsafe fn cleanup(
    gl: &glow::Context,
    program: glow::NativeProgram,
    shaders: &[glow::NativeShader],
) {
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
        };
        let bytes = instance_bytes(std::slice::from_ref(&i));
        assert_eq!(bytes.len(), 52);
        let floats: Vec<f32> = bytes
            .chunks_exact(4)
            .map(|c| f32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        assert_eq!(floats, (1..=13).map(|v| v as f32).collect::<Vec<_>>());
    }
}
