//! # A custom render stage: a GL pass of the game's own under the sprites
//!
//! **Motivation.** The engine draws sprites, shapes and text; a game that
//! wants more — a shader background, a post effect, its own meshes — adds
//! a pass of its own to the render thread's frame, without giving up the
//! engine's frame path (interpolation, the HUD layers, the capture).
//!
//! **Implementation.** `Sky` implements [`RenderPass`]: `start` compiles a
//! two-stage GLSL 330 program and makes an empty vertex array (the
//! full-screen triangle's corners come from `gl_VertexID`);
//! `before_sprites` draws the triangle, a vertical gradient from a sunset
//! orange at the bottom to a deep blue at the top, after the clear and
//! before the sprites; `stop` deletes both. The engine makes the pass on
//! the render thread through the [`RenderPassFactory`] in
//! `EngineOptions::render_pass` (a fresh one per run), so its GL objects
//! never leave that thread. The game itself is tiny: a sun (a white circle)
//! in the middle and five birds crossing the sky, moved by a system in
//! the simulation scalar and interpolated by the renderer.
//!
//! **Checks.** Headless (what CI runs first): 10 frames on an EGL context,
//! frame 10 read back; the top and bottom rows must be the gradient's ends
//! and the sun's centre white — exit code 1 otherwise. With `--window
//! --screenshot PATH` (CI runs it under Xvfb) the same check runs on the
//! window's frame 30.
//!
//! ```text
//! cargo run -p laige-engine --example custom_pass              # headless, checked
//! cargo run -p laige-engine --example custom_pass -- --window  # look at it
//! ```

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "an example program prints its report"
)]
#![allow(unsafe_code, reason = "glow's GL entry points are unsafe FFI")]

#[path = "support/screenshot.rs"]
mod screenshot;

use laige_engine::prelude::*;
use laige_engine::render::FrameDescriptor;
use laige_engine::render::gl::CurrentGlContext;
use laige_engine::render::gl::glow::{self, HasContext as _};
use laige_engine::{FrameCapture, RenderPass, RenderPassFactory};

const W: i32 = 320;
const H: i32 = 180;
/// The gradient's ends, straight RGB.
const TOP: [f32; 3] = [0.10, 0.20, 0.45];
const BOTTOM: [f32; 3] = [0.85, 0.45, 0.20];

const VERTEX: &str = "#version 330 core
out float v_y;
void main() {
    // (0,0) (2,0) (0,2): one triangle covering the whole target.
    vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
    v_y = p.y;
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
";

const FRAGMENT: &str = "#version 330 core
in float v_y;
uniform vec3 u_top;
uniform vec3 u_bottom;
out vec4 color;
void main() {
    color = vec4(mix(u_bottom, u_top, clamp(v_y, 0.0, 1.0)), 1.0);
}
";

/// The sky: a full-screen gradient drawn before the sprites.
#[derive(Default)]
struct Sky {
    program: Option<glow::NativeProgram>,
    vao: Option<glow::NativeVertexArray>,
}

fn gl_error(what: &str, detail: String) -> Error {
    Error::new(
        laige_engine::ErrorCode::Failed,
        laige_engine::core::EventId::new("custom_pass", "gl_failed"),
    )
    .with_field(what.to_owned())
    .with_detail(detail)
}

impl RenderPass for Sky {
    fn start(&mut self, ctx: &CurrentGlContext) -> Result<()> {
        let gl = ctx.gl();
        // SAFETY: `ctx` is current on this thread (the render thread, for
        // the whole of the pass's life); every name is created here.
        unsafe {
            let program = gl.create_program().map_err(|e| gl_error("program", e))?;
            for (kind, src) in [
                (glow::VERTEX_SHADER, VERTEX),
                (glow::FRAGMENT_SHADER, FRAGMENT),
            ] {
                let shader = gl.create_shader(kind).map_err(|e| gl_error("shader", e))?;
                gl.shader_source(shader, src);
                gl.compile_shader(shader);
                if !gl.get_shader_compile_status(shader) {
                    return Err(gl_error("compile", gl.get_shader_info_log(shader)));
                }
                gl.attach_shader(program, shader);
                gl.delete_shader(shader); // freed with the program
            }
            gl.link_program(program);
            if !gl.get_program_link_status(program) {
                return Err(gl_error("link", gl.get_program_info_log(program)));
            }
            self.program = Some(program);
            self.vao = Some(gl.create_vertex_array().map_err(|e| gl_error("vao", e))?);
        }
        Ok(())
    }

    fn before_sprites(&mut self, ctx: &CurrentGlContext, _frame: &FrameDescriptor) -> Result<()> {
        let (Some(program), Some(vao)) = (self.program, self.vao) else {
            return Ok(());
        };
        ctx.bind_target(); // the whole target: the letterbox bars come later
        let gl = ctx.gl();
        // SAFETY: current context (see `start`); the names are this pass's.
        // The sprite renderer sets every state it draws with itself.
        unsafe {
            gl.disable(glow::BLEND);
            gl.use_program(Some(program));
            let top = gl.get_uniform_location(program, "u_top");
            let bottom = gl.get_uniform_location(program, "u_bottom");
            gl.uniform_3_f32(top.as_ref(), TOP[0], TOP[1], TOP[2]);
            gl.uniform_3_f32(bottom.as_ref(), BOTTOM[0], BOTTOM[1], BOTTOM[2]);
            gl.bind_vertex_array(Some(vao));
            gl.draw_arrays(glow::TRIANGLES, 0, 3);
        }
        Ok(())
    }

    fn stop(&mut self, ctx: &CurrentGlContext) {
        let gl = ctx.gl();
        // SAFETY: current context (see `start`); the names are this pass's.
        unsafe {
            if let Some(p) = self.program.take() {
                gl.delete_program(p);
            }
            if let Some(v) = self.vao.take() {
                gl.delete_vertex_array(v);
            }
        }
    }
}

#[derive(Clone, Copy, StateHash)]
struct Bird<S: EngineScalar> {
    pos: Vec2<S>,
    prev: Vec2<S>,
    speed: S,
}

struct Birds;

impl Game for Birds {
    fn setup<S: EngineScalar>(&mut self, setup: &mut Setup<'_>) -> Result<()> {
        let world = setup.world();
        world.register_hashed_as::<Bird<S>>("custom_pass.bird")?;
        for i in 0..5 {
            let p = Vec2::new(S::from_i32(40 + 50 * i), S::from_i32(120 + 9 * (i % 3)));
            world.spawn((Bird {
                pos: p,
                prev: p,
                speed: S::from_ratio(1 + i % 3, 2),
            },));
        }
        world.register_system("birds/fly", 0, |ctx| {
            for b in ctx.query_mut::<&mut Bird<S>>() {
                b.prev = b.pos;
                b.pos.x += b.speed;
                if b.pos.x > S::from_i32(W + 10) {
                    b.pos.x = S::from_i32(-10);
                    b.prev = b.pos;
                }
            }
            Ok(())
        })
    }

    fn present<S: EngineScalar>(&mut self, world: &World, frame: &mut Frame<'_>) {
        frame.push(Sprite {
            shape: Shape::Circle,
            ..Sprite::quad([W as f32 / 2.0, H as f32 / 2.0], [40.0, 40.0], [1.0; 4])
        });
        for b in world.ecs().query::<&Bird<S>>().iter() {
            frame.push(Sprite {
                prev_position: [b.prev.x.to_f32(), b.prev.y.to_f32()],
                ..Sprite::quad(
                    [b.pos.x.to_f32(), b.pos.y.to_f32()],
                    [6.0, 2.0],
                    [0.1, 0.1, 0.15, 1.0],
                )
            });
        }
    }

    fn view(&self, _config: &EngineConfig) -> ViewRect {
        const SKY: ViewRect = ViewRect::from_bounds(0.0, 0.0, W as f32, H as f32);
        SKY
    }
}

/// The pixels that must be there: the gradient's ends at the top and
/// bottom rows, the sun's white centre.
fn check(path: &std::path::Path) -> std::result::Result<String, String> {
    let shot = screenshot::Shot::read(path)?;
    let (w, h) = (shot.width, shot.height);
    let byte = |c: [f32; 3]| c.map(|v| (v * 255.0).round() as u8);
    let (top, bottom, centre) = (shot.at(2, 0), shot.at(2, h - 1), shot.at(w / 2, h / 2));
    if !screenshot::near(top, byte(TOP), 4) {
        return Err(format!("top row {top:?}, expected about {:?}", byte(TOP)));
    }
    if !screenshot::near(bottom, byte(BOTTOM), 4) {
        return Err(format!(
            "bottom row {bottom:?}, expected about {:?}",
            byte(BOTTOM)
        ));
    }
    if centre != [255; 3] {
        return Err(format!("the sun's centre is {centre:?}, not white"));
    }
    let sky = shot.count(|p| p[2] > p[0]);
    Ok(format!(
        "{w}x{h}: top {top:?}, bottom {bottom:?}, sun white, {sky} sky-blue pixels"
    ))
}

fn main() -> std::process::ExitCode {
    let args = screenshot::Args::parse();
    let temp = std::env::temp_dir().join(format!("custom_pass-{}.ppm", std::process::id()));
    let shot = args.screenshot.clone().unwrap_or(temp);
    let mut options = EngineOptions {
        render_pass: Some(RenderPassFactory::new(Sky::default)),
        ..EngineOptions::default()
    };
    let builder = Engine::builder().game(Birds);
    let run = if args.window {
        if args.screenshot.is_some() {
            options.capture = Some(FrameCapture {
                frame: screenshot::SHOT_FRAME,
                path: shot.clone(),
            });
            options.close_after_frames = Some(screenshot::CLOSE_AFTER);
        }
        builder
            .options(options)
            .build()
            .and_then(|e| e.run_windowed(RunLimit::Unlimited))
    } else {
        options.pacing = Pacing::Unpaced;
        options.headless_render = HeadlessRender::Gl {
            width: W as u32 * 2,
            height: H as u32 * 2,
        };
        options.capture = Some(FrameCapture {
            frame: 10,
            path: shot.clone(),
        });
        builder
            .options(options)
            .build()
            .and_then(|e| e.run_headless(RunLimit::Frames(10)))
    };
    let report = match run {
        Ok(report) => report,
        Err(e) => {
            eprintln!("custom_pass: {e}");
            return std::process::ExitCode::from(laige_engine::EXIT_SETUP_FAILED);
        }
    };
    println!("{report}");
    if report.exit_code() != 0 {
        return std::process::ExitCode::from(report.exit_code());
    }
    if args.window && args.screenshot.is_none() {
        return std::process::ExitCode::SUCCESS; // played, nothing to check
    }
    let verdict = check(&shot);
    if args.screenshot.is_none() {
        let _ = std::fs::remove_file(&shot);
    }
    match verdict {
        Ok(summary) => {
            println!("custom_pass: screenshot ok ({summary})");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("custom_pass: screenshot check FAILED: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
