//! The demo's presentation: one sprite per entity (current and previous
//! position, coloured by heading) plus the attractor, and the view that
//! fits the arena to the window. Render-space `f32` only: nothing here
//! feeds back into the simulation.

use laige_engine::render::gl::{Sprite, ViewRect};
use laige_engine::sim::workload::{Position, PrevPosition, Velocity};
use laige_engine::{EngineConfig, EngineScalar, World};

use crate::sim::{Attractor, HALF_EXTENT};

/// A sprite's side in world units.
pub const SPRITE_SIDE: f32 = 8.0;

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
    let mut attractor = world.ecs().query::<&Attractor<S>>();
    if let Some(a) = attractor.iter().next() {
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
