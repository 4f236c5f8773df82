//! Everything a game's signatures name, in one import:
//! `use laige_engine::prelude::*;`.
//!
//! The builder and its run options, the [`Game`] trait and what its hooks
//! receive (`Setup`, `Control`, `World`, `RunReport`, `Frame`), the entity
//! handle (`Entity`), the sprite, text and view
//! types `present` and `view` use, the scalar types and bound, the input
//! vocabulary, resources and the replay verdict. Nothing here is new: each
//! item keeps its own path too.
//!
//! ```
//! use laige_engine::prelude::*;
//!
//! #[derive(Clone, Copy, StateHash)]
//! struct Pos<S: EngineScalar>(Vec2<S>);
//!
//! struct Dot;
//!
//! impl Game for Dot {
//!     fn setup<S: EngineScalar>(&mut self, setup: &mut Setup<'_>) -> Result<()> {
//!         setup.world().register_hashed_as::<Pos<S>>("dot.pos")?;
//!         setup.world().spawn((Pos(Vec2::new(S::ONE, S::ONE)),));
//!         Ok(())
//!     }
//!     fn on_tick<S: EngineScalar>(&mut self, _world: &World, _tick: u64) {}
//!     fn present<S: EngineScalar>(&mut self, world: &World, frame: &mut Frame<'_>) {
//!         for p in world.ecs().query::<&Pos<S>>().iter() {
//!             frame.push(Sprite { position: [p.0.x.to_f32(), p.0.y.to_f32()], ..Sprite::default() });
//!         }
//!     }
//!     fn view(&self, _config: &EngineConfig) -> ViewRect {
//!         const VIEW: ViewRect = ViewRect::from_bounds(0.0, 0.0, 64.0, 48.0);
//!         VIEW
//!     }
//! }
//!
//! let report = Engine::builder()
//!     .game(Dot)
//!     .options(EngineOptions { pacing: Pacing::Unpaced, handle_ctrl_c: false, ..Default::default() })
//!     .build()?
//!     .run_headless(RunLimit::Ticks(3))?;
//! assert_eq!(report.ticks, 3);
//! # Ok::<(), laige_engine::Error>(())
//! ```

pub use crate::effects::{EffectConfig, EffectEvent, EffectKind, EffectReader};
pub use crate::input::{
    ButtonState, CoordSpace, InputEvent, InputKind, InputPoint, KeyCode, MouseButton, ScriptAt,
    TickInput,
};
#[cfg(feature = "gl")]
pub use crate::render::gl::{Align, Font, TextStyle, TextureId, TextureQueue};
pub use crate::render::gl::{Shape, Space, Sprite, ViewRect};
pub use crate::{
    ArrayString, Control, Engine, EngineBuilder, EngineConfig, EngineOptions, EngineScalar, Entity,
    Error, ExitReason, Fp32Pinned, Fpx16_16, Frame, Game, GameWrapper, HeadlessRender, MathBackend,
    Pacing, ReplayOutcome, ReplayReport, Result, RunLimit, RunReport, RunStats, Setup, SimRng,
    SimScalar, StateHash, SystemContext, Vec2, World,
};
