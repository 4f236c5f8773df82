//! The demo's presentation: one sprite per entity (current and previous
//! position, coloured by heading) plus the attractor, the HUD over them
//! (the run's numbers, in the engine's default font), and the view that
//! fits the arena to the window. Render-space `f32` only: nothing here
//! feeds back into the simulation.

use std::fmt::Write as _;

#[cfg(any(feature = "window", feature = "web"))]
use laige_engine::render::gl::{Space, TextStyle};
use laige_engine::render::gl::{Sprite, ViewRect};
use laige_engine::sim::workload::{Position, PrevPosition, Velocity};
use laige_engine::{ArrayString, EngineConfig, EngineScalar, Frame, World};

use crate::sim::{Attractor, HALF_EXTENT};

/// A sprite's side in world units.
pub const SPRITE_SIDE: f32 = 8.0;

/// The HUD's text size: the embedded font at twice its 8 px, so every
/// glyph texel is 2 × 2 screen pixels, exactly.
pub const HUD_TEXT_SIZE: f32 = 16.0;
/// The HUD's distance from the window's top-left corner and the panel's
/// padding around the text, logical pixels.
pub const HUD_MARGIN: f32 = 8.0;
/// The HUD text's colour (opaque white).
pub const HUD_TEXT_COLOR: [f32; 4] = [1.0, 1.0, 1.0, 1.0];
/// The HUD panel's colour: black at 60 %, the world dimmed behind it.
pub const HUD_PANEL_COLOR: [f32; 4] = [0.0, 0.0, 0.0, 0.6];
/// The HUD text's layer; the panel is one below, the world on 0.
pub const HUD_LAYER: u8 = 255;

/// Ticks between two state hashes the HUD shows: hashing the world costs
/// O(entities) (about 0.4 ms at 10k), too much for every frame of the
/// thread that runs the simulation.
pub const HUD_HASH_EVERY: u64 = 30;

/// The state hash the HUD shows and the tick it is of: taken at the first
/// frame, then at the first frame of each later block of
/// [`HUD_HASH_EVERY`] ticks (a frame whose tick is a multiple of it, when
/// ticks advance one per frame).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HudHash {
    taken: Option<(u64, u64)>,
}

impl HudHash {
    /// `(tick, hash)` for this frame: the held pair, or a fresh one when
    /// the frame's tick is in a later block than the held tick's.
    pub fn refresh(&mut self, frame: &Frame<'_>) -> (u64, u64) {
        let tick = frame.stats().tick;
        match self.taken {
            Some((held, hash)) if held / HUD_HASH_EVERY == tick / HUD_HASH_EVERY => (held, hash),
            _ => {
                let fresh = (tick, frame.state_hash());
                self.taken = Some(fresh);
                fresh
            }
        }
    }
}

/// The frame: the world's sprites, then the HUD over them.
pub fn present<S: EngineScalar>(world: &World, frame: &mut Frame<'_>, hud_hash: &mut HudHash) {
    sprites::<S>(world, frame.sprites());
    hud(frame, hud_hash);
}

/// The HUD text of one frame (five lines, at most 36 characters: 600
/// pixels with the panel, inside the smallest usual window), formatted on
/// the stack: tick and fps; the tick time's p50 and p99 over the
/// profiler's window; dropped ticks, the frames that dropped them and the
/// frames the renderer dropped; the state hash and the tick it is of
/// (refreshed through `hud_hash`); the math backend.
pub fn hud_text(frame: &mut Frame<'_>, hud_hash: &mut HudHash) -> ArrayString<192> {
    let stats = *frame.stats();
    let times = frame.tick_times();
    let (hash_tick, hash) = hud_hash.refresh(frame);
    let ms = |ns: u64| {
        let us = ns / 1_000;
        (us / 1_000, us % 1_000)
    };
    let ((p50_ms, p50_us), (p99_ms, p99_us)) = (ms(times.p50_ns), ms(times.p99_ns));
    let mut text = ArrayString::<192>::new();
    // Five short lines fit 192 bytes whatever the numbers (u64 at most 20
    // digits each): the write cannot fail.
    let _ = write!(
        text,
        "tick {}  fps {:.1}\n\
         tick p50 {p50_ms}.{p50_us:03} ms  p99 {p99_ms}.{p99_us:03} ms\n\
         dropped {} ticks / {} frames, render {}\n\
         hash {hash:016x} @{hash_tick}\n\
         math {}",
        stats.tick,
        stats.fps,
        stats.dropped_ticks,
        stats.dropped_frames,
        stats.frames_render_dropped,
        stats.backend.id(),
    );
    text
}

/// The HUD rectangle for `text`: `[left, bottom, right, top]` in screen
/// pixels (the panel, padding included), anchored to the top-left corner
/// of a `screen`-sized target.
#[must_use]
pub fn hud_rect(text_size: [f32; 2], screen: [f32; 2]) -> [f32; 4] {
    let top = screen[1] - HUD_MARGIN;
    [
        HUD_MARGIN,
        top - text_size[1] - 2.0 * HUD_MARGIN,
        HUD_MARGIN + text_size[0] + 2.0 * HUD_MARGIN,
        top,
    ]
}

/// Draws the HUD: a translucent panel at the top-left corner, the text on
/// it. Allocates nothing once the frame's sprite buffer has grown. A
/// headless-only build (without the `window` or `web` feature: no GL pipeline, so
/// no font and nothing that draws) has no HUD.
#[cfg(not(any(feature = "window", feature = "web")))]
pub fn hud(_frame: &mut Frame<'_>, _hud_hash: &mut HudHash) {}

/// Draws the HUD: a translucent panel at the top-left corner, the text on
/// it. Allocates nothing once the frame's sprite buffer has grown.
#[cfg(any(feature = "window", feature = "web"))]
pub fn hud(frame: &mut Frame<'_>, hud_hash: &mut HudHash) {
    let text = hud_text(frame, hud_hash);
    let size = frame.font().measure(&text, HUD_TEXT_SIZE);
    let [left, bottom, right, top] = hud_rect(size, frame.screen_size());
    frame.push(Sprite {
        space: Space::Screen,
        layer: HUD_LAYER - 1,
        ..Sprite::quad(
            [(left + right) * 0.5, (bottom + top) * 0.5],
            [right - left, top - bottom],
            HUD_PANEL_COLOR,
        )
    });
    frame.text(
        &text,
        &TextStyle {
            position: [left + HUD_MARGIN, top - HUD_MARGIN],
            size: HUD_TEXT_SIZE,
            color: HUD_TEXT_COLOR,
            space: Space::Screen,
            layer: HUD_LAYER,
            ..TextStyle::default()
        },
    );
}

/// Appends the frame's sprites: the renderer interpolates each from
/// `prev_position` to `position` with the frame's alpha.
pub fn sprites<S: EngineScalar>(world: &World, sprites: &mut Vec<Sprite>) {
    let mut query = world
        .ecs()
        .query::<(&Position<S>, &PrevPosition<S>, &Velocity<S>)>();
    for (pos, prev, vel) in query.iter() {
        let (vx, vy) = (vel.0.x.to_f32(), vel.0.y.to_f32());
        let speed = (vx * vx + vy * vy).sqrt().max(1e-3);
        sprites.push(Sprite {
            position: [pos.0.x.to_f32(), pos.0.y.to_f32()],
            prev_position: [prev.0.x.to_f32(), prev.0.y.to_f32()],
            size: [SPRITE_SIDE, SPRITE_SIDE],
            rotation: 0.0,
            color: [
                0.55 + 0.45 * vx / speed,
                0.55 + 0.45 * vy / speed,
                0.95,
                1.0,
            ],
            ..Sprite::default()
        });
    }
    // Every attractor: one per player in a network game (a local game has
    // one). All of them are drawn in the attractor yellow.
    let mut attractors = world.ecs().query::<&Attractor<S>>();
    for a in attractors.iter() {
        sprites.push(Sprite::quad(
            [a.0.x.to_f32(), a.0.y.to_f32()],
            [SPRITE_SIDE * 3.0, SPRITE_SIDE * 3.0],
            [1.0, 0.85, 0.2, 1.0],
        ));
    }
}

/// The arena fitted to the window's aspect: the square `±HALF_EXTENT`
/// (plus a sprite of margin) centered, the longer axis extended.
#[must_use]
pub fn demo_view(config: &EngineConfig) -> ViewRect {
    #[allow(
        clippy::cast_precision_loss,
        reason = "window sides ≤ 16384 and the extent are exact in f32"
    )]
    let (w, h, half) = (
        config.render.window_width as f32,
        config.render.window_height as f32,
        HALF_EXTENT as f32 + SPRITE_SIDE,
    );
    let (hx, hy) = if w >= h {
        (half * w / h, half)
    } else {
        (half, half * h / w)
    };
    ViewRect::new(-hx, -hy, hx, hy)
        .or_else(|_| ViewRect::new(-half, -half, half, half))
        .unwrap_or_else(|_| unreachable!("a symmetric finite view is valid"))
}
