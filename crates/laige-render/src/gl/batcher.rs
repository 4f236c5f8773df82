//! The CPU half of the sprite pipeline (the render thread's `batch` stage):
//! interpolate, cull against the view, build the GPU instance array and cut
//! it into per-texture batches. Pure Rust — no GL — so it is tested and
//! benchmarked without a context.
//!
//! Order is the painter's order by layer: sprites of a higher
//! [`Sprite::layer`] draw over lower ones (a HUD on layer 255 over the
//! world on layer 0); within a layer, input order (later sprites draw on
//! top). A batch is a run of consecutive *visible* sprites with the same
//! texture and [`Space`]. Culled sprites never break a run, so a scene
//! grouped by texture draws in one call per texture group. One pass cuts
//! the visible sprites into runs of equal texture, space and layer while it
//! builds their instances; a frame whose runs already rise in layer (one
//! layer, or a HUD after the world) is not sorted, otherwise a stable
//! counting sort over the 256 layers moves whole runs, O(n).
//!
//! Steady state allocates nothing: [`SpriteBatcher::build`] reuses its
//! buffers, which grow only when a frame has more sprites (or more batches)
//! than any frame before.

use crate::events::{BATCH_ALPHA_INVALID, BATCH_VIEW_INVALID, SPRITE_REJECTED, TOO_MANY_SPRITES};
use laige_core::{Error, ErrorCode, Result};

/// The most sprites one frame may hand the batcher: 2^24 (16,777,216).
///
/// Where it comes from: the renderer addresses a batch's first instance by
/// a byte offset into the instance buffer, and GL 3.3's attribute offsets
/// are 32-bit signed — 2^24 × 56 bytes (940 MB) stays well inside
/// `i32::MAX`, far beyond any real frame.
pub const MAX_SPRITES_PER_FRAME: usize = 1 << 24;

/// A texture of a [`SpriteRenderer`](super::SpriteRenderer): index 0 is the
/// built-in 1×1 white texture ([`TextureId::WHITE`]), the rest come from
/// [`SpriteRenderer::upload_texture`](super::SpriteRenderer::upload_texture)
/// in upload order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TextureId(u32);

impl TextureId {
    /// The built-in opaque white 1×1 texture: a sprite with it draws its
    /// color as a flat quad.
    pub const WHITE: TextureId = TextureId(0);

    /// The id with this index (0 = [`TextureId::WHITE`]). Ids are only
    /// meaningful to the renderer that issued them; the renderer rejects an
    /// index it did not issue.
    #[must_use]
    pub const fn from_index(index: u32) -> Self {
        Self(index)
    }

    /// The index of the texture in its renderer.
    #[must_use]
    pub const fn index(self) -> u32 {
        self.0
    }
}

/// What a sprite's quad is filled with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Shape {
    /// The texture region over the whole quad — the default.
    #[default]
    Quad,
    /// The ellipse inscribed in the quad (a circle for a square quad),
    /// filled with the texture × colour, its edge anti-aliased over about
    /// one pixel by a signed distance in the fragment shader.
    Circle,
    /// Not drawn: the frame's camera (see [`Sprite::camera`]).
    Camera,
}

/// The coordinate space of a sprite.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Space {
    /// World units through the frame's view (the camera) — the default.
    /// Culled against the view.
    #[default]
    World,
    /// Screen units: logical pixels of the whole target (physical pixels
    /// divided by the renderer's scale factor), `(0, 0)` at the
    /// bottom-left, y up — for a HUD that stays put while the camera moves.
    /// Never culled (a HUD is small and always meant to be seen).
    Screen,
}

/// One sprite as the sim side hands it over (render-side plain `f32`
/// data, world units; y points up).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprite {
    /// Center at the current tick.
    pub position: [f32; 2],
    /// Center at the previous tick; the drawn center is
    /// `prev_position + (position - prev_position) × alpha`. Equal to
    /// `position` for a sprite that does not move.
    pub prev_position: [f32; 2],
    /// Width and height. A negative side mirrors the sprite along that axis.
    pub size: [f32; 2],
    /// Counter-clockwise rotation about the center, radians.
    pub rotation: f32,
    /// RGBA multiplier in `0.0..=1.0`, straight (not premultiplied) alpha.
    pub color: [f32; 4],
    /// The texture region `[u0, v0, u1, v1]`, normalized: `(u0, v0)` is the
    /// region's top-left in image order (v = 0 is the first uploaded row,
    /// the image's top), `(u1, v1)` its bottom-right. `[0, 0, 1, 1]` is the
    /// whole texture, upright.
    pub uv_rect: [f32; 4],
    /// The texture ([`TextureId::WHITE`] for a flat colored quad).
    pub texture: TextureId,
    /// What fills the quad (a rectangle or the inscribed circle).
    pub shape: Shape,
    /// World (through the view) or screen (pixels) coordinates.
    pub space: Space,
    /// Draw order: a higher layer draws over a lower one; equal layers
    /// draw in input order. Default 0.
    pub layer: u8,
}

impl Sprite {
    /// A flat colored, unrotated, non-moving quad.
    ///
    /// ```
    /// use laige_render::gl::{Sprite, TextureId};
    /// let s = Sprite::quad([10.0, 20.0], [4.0, 4.0], [1.0, 0.0, 0.0, 1.0]);
    /// assert_eq!(s.prev_position, s.position);
    /// assert_eq!(s.texture, TextureId::WHITE);
    /// ```
    #[must_use]
    pub const fn quad(position: [f32; 2], size: [f32; 2], color: [f32; 4]) -> Self {
        Self {
            position,
            prev_position: position,
            size,
            rotation: 0.0,
            color,
            uv_rect: [0.0, 0.0, 1.0, 1.0],
            texture: TextureId::WHITE,
            shape: Shape::Quad,
            space: Space::World,
            layer: 0,
        }
    }
}

impl Sprite {
    /// A camera item: not drawn; as the **first** sprite of a frame it
    /// replaces [`BatchParams::view`] for that frame, so the view (camera
    /// position and zoom) changes every frame and travels with the frame's
    /// sprites. Its centre is interpolated like a sprite's (set
    /// `prev_position` to the previous view's centre for a smooth camera);
    /// its size is the view's extent. A camera anywhere else, or one whose
    /// geometry is not finite or has a zero side, is counted as culled (or
    /// rejected) and the frame keeps `BatchParams::view`.
    ///
    /// ```
    /// use laige_render::gl::{BatchParams, Sprite, SpriteBatcher, ViewRect};
    /// let mut b = SpriteBatcher::default();
    /// let params = BatchParams { view: ViewRect::new(0.0, 0.0, 64.0, 64.0)?, alpha: 1.0 };
    /// let camera = Sprite::camera(ViewRect::new(100.0, 0.0, 164.0, 64.0)?);
    /// let s = b.build(&[camera, Sprite::quad([120.0, 10.0], [4.0, 4.0], [1.0; 4])], &params)?;
    /// assert_eq!((s.visible, b.view().unwrap().min()), (1, [100.0, 0.0]));
    /// # Ok::<(), laige_core::Error>(())
    /// ```
    #[must_use]
    pub fn camera(view: ViewRect) -> Self {
        let (min, max) = (view.min(), view.max());
        let center = [(min[0] + max[0]) * 0.5, (min[1] + max[1]) * 0.5];
        Self {
            shape: Shape::Camera,
            ..Self::quad(center, [max[0] - min[0], max[1] - min[1]], [0.0; 4])
        }
    }
}

impl Default for Sprite {
    /// A 1×1 opaque white quad at the origin.
    fn default() -> Self {
        Self::quad([0.0, 0.0], [1.0, 1.0], [1.0; 4])
    }
}

/// One GPU instance: what the vertex shader reads per quad. `#[repr(C)]`,
/// 14 `f32` = 56 bytes, no padding; uploaded as is.
///
/// | offset | field      | attribute location |
/// |--------|------------|--------------------|
/// | 0      | `position` | 0 (`vec2`)         |
/// | 8      | `size`     | 1 (`vec2`)         |
/// | 16     | `rotation` | 2 (`float`)        |
/// | 20     | `color`    | 3 (`vec4`)         |
/// | 36     | `uv_rect`  | 4 (`vec4`)         |
/// | 52     | `shape`    | 5 (`float`)        |
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SpriteInstance {
    /// Interpolated center, world units.
    pub position: [f32; 2],
    /// Width and height, world units (negative mirrors).
    pub size: [f32; 2],
    /// Counter-clockwise rotation, radians.
    pub rotation: f32,
    /// RGBA multiplier.
    pub color: [f32; 4],
    /// `[u0, v0, u1, v1]` (see [`Sprite::uv_rect`]).
    pub uv_rect: [f32; 4],
    /// The [`Shape`] as the shader reads it: 0 quad, 1 circle.
    pub shape: f32,
}

const _: () = assert!(size_of::<SpriteInstance>() == 56 && align_of::<SpriteInstance>() == 4);

/// An axis-aligned view rectangle in world units: what the frame shows. The
/// renderer maps it onto the whole target (an orthographic projection,
/// `min` to the bottom-left corner, `max` to the top-right).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewRect {
    min: [f32; 2],
    max: [f32; 2],
}

impl ViewRect {
    /// The rectangle `[min_x, max_x] × [min_y, max_y]`.
    ///
    /// ```
    /// use laige_render::gl::ViewRect;
    /// let v = ViewRect::new(0.0, 0.0, 320.0, 180.0).unwrap();
    /// assert_eq!(v.max(), [320.0, 180.0]);
    /// assert!(ViewRect::new(0.0, 0.0, 0.0, 180.0).is_err());
    /// ```
    ///
    /// # Errors
    ///
    /// `sprite_batcher/view_invalid` (`InvalidArgument`) when a bound is not
    /// finite or `min >= max` on an axis.
    pub fn new(min_x: f32, min_y: f32, max_x: f32, max_y: f32) -> Result<Self> {
        if !(min_x.is_finite() && max_x.is_finite()) || min_x >= max_x {
            return Err(Error::invalid_argument(
                BATCH_VIEW_INVALID,
                "view x range",
                format!("[{min_x}, {max_x}]"),
                "finite bounds with min_x < max_x",
            ));
        }
        if !(min_y.is_finite() && max_y.is_finite()) || min_y >= max_y {
            return Err(Error::invalid_argument(
                BATCH_VIEW_INVALID,
                "view y range",
                format!("[{min_y}, {max_y}]"),
                "finite bounds with min_y < max_y",
            ));
        }
        Ok(Self {
            min: [min_x, min_y],
            max: [max_x, max_y],
        })
    }

    /// The rectangle of literal bounds, infallibly, for a `const`: bounds
    /// a valid view has (finite, `min < max` on both axes) give the same
    /// rectangle as [`new`](Self::new); others do not compile when the
    /// result is a `const` (the check runs at compile time there). For
    /// bounds computed at run time use [`new`](Self::new), which returns
    /// the error instead.
    ///
    /// ```
    /// use laige_render::gl::ViewRect;
    /// const FIELD: ViewRect = ViewRect::from_bounds(0.0, 0.0, 320.0, 180.0);
    /// assert_eq!(FIELD, ViewRect::new(0.0, 0.0, 320.0, 180.0)?);
    /// # Ok::<(), laige_core::Error>(())
    /// ```
    ///
    /// ```compile_fail
    /// use laige_render::gl::ViewRect;
    /// const EMPTY: ViewRect = ViewRect::from_bounds(0.0, 0.0, 0.0, 180.0); // min_x == max_x
    /// ```
    ///
    /// # Panics
    ///
    /// Outside a `const`, on bounds [`new`](Self::new) refuses.
    #[must_use]
    pub const fn from_bounds(min_x: f32, min_y: f32, max_x: f32, max_y: f32) -> Self {
        assert!(
            min_x.is_finite() && max_x.is_finite() && min_x < max_x,
            "view x range: finite bounds with min_x < max_x"
        );
        assert!(
            min_y.is_finite() && max_y.is_finite() && min_y < max_y,
            "view y range: finite bounds with min_y < max_y"
        );
        Self {
            min: [min_x, min_y],
            max: [max_x, max_y],
        }
    }

    /// The bottom-left corner.
    #[must_use]
    pub const fn min(&self) -> [f32; 2] {
        self.min
    }

    /// The top-right corner.
    #[must_use]
    pub const fn max(&self) -> [f32; 2] {
        self.max
    }
}

/// Per-frame inputs of [`SpriteBatcher::build`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BatchParams {
    /// What the frame shows; sprites entirely outside are culled.
    pub view: ViewRect,
    /// The presentation alpha, `0.0..=1.0` (the sim's `[0, 1)` plus 1.0 for
    /// "exactly the current tick"): 0 draws `prev_position`, 1 `position`.
    pub alpha: f32,
}

/// One draw call's worth of instances: `count` instances from `first`, all
/// with `texture` in `space`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Batch {
    /// The texture bound for the whole batch.
    pub texture: TextureId,
    /// The projection of the whole batch.
    pub space: Space,
    /// Index of the batch's first instance in [`SpriteBatcher::instances`].
    pub first: u32,
    /// Number of instances (≥ 1).
    pub count: u32,
}

/// What one [`SpriteBatcher::build`] did. `input = visible + culled + rejected`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchStats {
    /// Sprites handed in.
    pub input: u32,
    /// Sprites kept (instances built).
    pub visible: u32,
    /// Finite sprites entirely outside the view (or of zero area).
    pub culled: u32,
    /// Sprites with a non-finite position, previous position, size or
    /// rotation: dropped, counted here and logged (a rate-limited
    /// `sprite_batcher/sprite_rejected` Warn) — never drawn, never a panic.
    pub rejected: u32,
    /// Batches (draw calls) produced.
    pub batches: u32,
}

/// The view a camera item stands for at `alpha`, or `None` when its
/// geometry is not finite or has a zero side.
fn camera_view(c: &Sprite, alpha: f32) -> Option<ViewRect> {
    let x = c.prev_position[0] + (c.position[0] - c.prev_position[0]) * alpha;
    let y = c.prev_position[1] + (c.position[1] - c.prev_position[1]) * alpha;
    let (hx, hy) = (c.size[0].abs() * 0.5, c.size[1].abs() * 0.5);
    let (min, max) = ([x - hx, y - hy], [x + hx, y + hy]);
    let ok = [x, y, hx, hy].iter().all(|v| v.is_finite()) && min[0] < max[0] && min[1] < max[1];
    ok.then_some(ViewRect { min, max })
}

/// What decides a run: consecutive visible sprites with equal keys draw in
/// one batch and move together in the layer order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RunKey {
    texture: TextureId,
    space: Space,
    layer: u8,
}

impl RunKey {
    fn of(s: &Sprite) -> Self {
        Self {
            texture: s.texture,
            space: s.space,
            layer: s.layer,
        }
    }
}

/// The runs of one build as they close, in input order.
struct Runs<'a> {
    batches: &'a mut Vec<Batch>,
    layers: &'a mut Vec<u8>,
    /// A run on a lower layer than the run before it: the input is not in
    /// the painter's order and the runs must be sorted.
    descending: bool,
}

impl Runs<'_> {
    /// Closes the run of instances `first..end` (nothing when empty).
    fn close(&mut self, key: RunKey, first: u32, end: u32) {
        if end == first {
            return;
        }
        if let Some(&last) = self.layers.last() {
            self.descending |= key.layer < last;
        }
        self.batches.push(Batch {
            texture: key.texture,
            space: key.space,
            first,
            count: end - first,
        });
        self.layers.push(key.layer);
    }
}

/// Joins neighbouring batches of equal texture and space, in place.
fn merge_neighbours(batches: &mut Vec<Batch>) {
    let mut kept = 0;
    for i in 0..batches.len() {
        let b = batches[i];
        let joins = kept > 0 && {
            let last = batches[kept - 1];
            (last.texture, last.space) == (b.texture, b.space)
        };
        if joins {
            batches[kept - 1].count += b.count;
        } else {
            batches[kept] = b;
            kept += 1;
        }
    }
    batches.truncate(kept);
}

/// Culls and batches sprites into a reusable instance array.
///
/// ```
/// use laige_render::gl::{BatchParams, Sprite, SpriteBatcher, ViewRect};
///
/// let mut batcher = SpriteBatcher::default();
/// let params = BatchParams { view: ViewRect::new(0.0, 0.0, 64.0, 64.0)?, alpha: 1.0 };
/// let sprites = [
///     Sprite::quad([16.0, 16.0], [8.0, 8.0], [1.0, 0.0, 0.0, 1.0]),
///     Sprite::quad([200.0, 16.0], [8.0, 8.0], [0.0, 1.0, 0.0, 1.0]), // off view
/// ];
/// let stats = batcher.build(&sprites, &params)?;
/// assert_eq!((stats.visible, stats.culled, stats.batches), (1, 1, 1));
/// assert_eq!(batcher.instances()[0].position, [16.0, 16.0]);
/// # Ok::<(), laige_core::Error>(())
/// ```
#[derive(Debug, Default)]
#[doc = include_str!("sprite_batcher.md")]
pub struct SpriteBatcher {
    instances: Vec<SpriteInstance>,
    /// While building: the runs in input order (maximal for texture, space
    /// and layer); after: the batches in draw order.
    batches: Vec<Batch>,
    /// The layer of each run in `batches` while building.
    run_layers: Vec<u8>,
    /// The layer sort's output buffers (swapped with `instances` and
    /// `batches`) and its run order.
    sorted_instances: Vec<SpriteInstance>,
    sorted_batches: Vec<Batch>,
    run_order: Vec<u32>,
    view: Option<ViewRect>,
    stats: BatchStats,
}

impl SpriteBatcher {
    /// A batcher with room for `sprites` instances (and as many batches as
    /// a frame of flat quads needs: one), so the first frames do not grow.
    #[must_use]
    pub fn with_capacity(sprites: usize) -> Self {
        Self {
            instances: Vec::with_capacity(sprites),
            batches: Vec::with_capacity(16),
            run_layers: Vec::with_capacity(16),
            sorted_instances: Vec::new(),
            sorted_batches: Vec::new(),
            run_order: Vec::new(),
            view: None,
            stats: BatchStats::default(),
        }
    }

    /// Rebuilds the instance array and the batches from `sprites`:
    /// interpolate each center with `params.alpha`, cull against
    /// `params.view` (a rotated sprite is tested with its bounding circle,
    /// so culling never drops a visible sprite), copy the survivors in order
    /// and cut them into runs of equal texture, space and layer — all in one
    /// pass. Runs on a lower layer than an earlier run are then put in the
    /// layer order (whole runs move, as slices); runs already in order are
    /// only joined where neighbours share texture and space.
    ///
    /// Cost: O(n), no allocation once the buffers have grown to the frame's
    /// size (see the `sprites` bench and its budgets in `budgets.json`).
    ///
    /// # Errors
    ///
    /// `InvalidArgument` with `sprite_batcher/alpha_invalid` (alpha not in
    /// `0.0..=1.0`), `sprite_batcher/view_invalid` (a `ViewRect` that is
    /// invalid — impossible through [`ViewRect::new`]) or
    /// `sprite_batcher/too_many_sprites` (more than
    /// [`MAX_SPRITES_PER_FRAME`]). The previous frame's output is cleared
    /// either way.
    pub fn build(&mut self, sprites: &[Sprite], params: &BatchParams) -> Result<BatchStats> {
        self.instances.clear();
        self.batches.clear();
        self.run_layers.clear();
        self.view = None;
        self.stats = BatchStats::default();
        let alpha = params.alpha;
        if !(0.0..=1.0).contains(&alpha) {
            return Err(Error::invalid_argument(
                BATCH_ALPHA_INVALID,
                "alpha",
                alpha,
                "0.0..=1.0",
            ));
        }
        let mut view = params.view;
        ViewRect::new(view.min[0], view.min[1], view.max[0], view.max[1])?;
        let mut camera_rejected = 0_u32;
        let mut camera_used = false;
        let body = match sprites.first() {
            Some(c) if c.shape == Shape::Camera => {
                camera_used = true;
                match camera_view(c, alpha) {
                    Some(v) => view = v,
                    None => camera_rejected = 1,
                }
                &sprites[1..]
            }
            _ => sprites,
        };
        if sprites.len() > MAX_SPRITES_PER_FRAME {
            return Err(Error::new(ErrorCode::InvalidArgument, TOO_MANY_SPRITES)
                .with_field("sprites.len()")
                .with_value(sprites.len())
                .with_accepted(format!("0..={MAX_SPRITES_PER_FRAME} per frame")));
        }
        self.instances.reserve(body.len());

        let [vmin_x, vmin_y] = view.min;
        let [vmax_x, vmax_y] = view.max;
        let mut culled = 0_u32;
        let mut rejected = 0_u32;
        // One pass: cull, build the instance and cut the runs. A run closes
        // only where the key changes, so the per-sprite cost is one key
        // comparison; the layer order is looked at once per run.
        let mut runs = Runs {
            batches: &mut self.batches,
            layers: &mut self.run_layers,
            descending: false,
        };
        let mut run = body.first().map_or(
            RunKey {
                texture: TextureId::WHITE,
                space: Space::World,
                layer: 0,
            },
            RunKey::of,
        );
        let mut run_first = 0_u32;
        // ≤ MAX_SPRITES_PER_FRAME (2^24) instances: every index fits u32.
        let mut n = 0_u32;
        let instances = &mut self.instances;
        for s in body {
            let finite = s.position[0].is_finite()
                & s.position[1].is_finite()
                & s.prev_position[0].is_finite()
                & s.prev_position[1].is_finite()
                & s.size[0].is_finite()
                & s.size[1].is_finite()
                & s.rotation.is_finite();
            if !finite {
                rejected += 1;
                continue;
            }
            let x = s.prev_position[0] + (s.position[0] - s.prev_position[0]) * alpha;
            let y = s.prev_position[1] + (s.position[1] - s.prev_position[1]) * alpha;
            let (hx, hy) = if s.rotation == 0.0 {
                (s.size[0].abs() * 0.5, s.size[1].abs() * 0.5)
            } else {
                // The bounding circle: conservative for any rotation, no
                // trigonometry. Half the diagonal in f64 (the squares of
                // f32 sides are exact there, and it cannot overflow), so
                // no call into libm's hypotf.
                let (w, h) = (f64::from(s.size[0]), f64::from(s.size[1]));
                let r = (0.5 * (w * w + h * h).sqrt()) as f32;
                (r, r)
            };
            let has_area = s.size[0] != 0.0 && s.size[1] != 0.0 && s.shape != Shape::Camera;
            let visible = has_area
                && (s.space == Space::Screen
                    || (x - hx < vmax_x && x + hx > vmin_x && y - hy < vmax_y && y + hy > vmin_y));
            if !visible {
                culled += 1;
                continue;
            }
            let key = RunKey::of(s);
            if key != run {
                runs.close(run, run_first, n);
                run = key;
                run_first = n;
            }
            instances.push(SpriteInstance {
                position: [x, y],
                size: s.size,
                rotation: s.rotation,
                color: s.color,
                uv_rect: s.uv_rect,
                shape: f32::from(s.shape as u8),
            });
            n += 1;
        }
        runs.close(run, run_first, n);
        if runs.descending {
            self.sort_runs_by_layer();
        } else {
            // Already in the painter's order: only neighbouring runs on
            // different layers with the same texture and space join.
            merge_neighbours(&mut self.batches);
        }
        // The first sprite, a camera: not drawn — culled, or (after the
        // sprites' rejection warning below, which it does not join) rejected
        // when its geometry was unusable.
        culled += u32::from(camera_used) - camera_rejected;
        if rejected > 0 {
            // The unhealthy path only: rate-limited, no formatting unless emitted.
            laige_core::event!(
                Warn,
                SPRITE_REJECTED,
                rejected = rejected,
                input = sprites.len()
            );
        }
        rejected += camera_rejected;
        self.view = Some(view);
        self.stats = BatchStats {
            // ≤ MAX_SPRITES_PER_FRAME (2^24), checked above.
            input: u32::try_from(sprites.len()).unwrap_or(u32::MAX),
            visible: n,
            culled,
            rejected,
            batches: u32::try_from(self.batches.len()).unwrap_or(u32::MAX),
        };
        Ok(self.stats)
    }

    /// Puts the runs in the painter's order: a stable counting sort of the
    /// runs (not the instances) by layer over 256 buckets, then each run's
    /// instances copied as one slice into the second buffer pair, joining
    /// neighbours of equal texture and space into one batch. O(instances +
    /// runs); the buffer pairs swap roles every sorted frame.
    fn sort_runs_by_layer(&mut self) {
        let mut starts = [0_u32; 257];
        for &layer in &self.run_layers {
            starts[usize::from(layer) + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        self.run_order.clear();
        self.run_order.resize(self.run_layers.len(), 0);
        for (run, &layer) in (0_u32..).zip(&self.run_layers) {
            let slot = &mut starts[usize::from(layer)];
            self.run_order[*slot as usize] = run;
            *slot += 1;
        }
        // Give the sorted pair the same capacity as the pair it replaces,
        // so neither grows in steady state.
        self.sorted_instances.clear();
        self.sorted_instances.reserve(self.instances.capacity());
        self.sorted_batches.clear();
        self.sorted_batches.reserve(self.batches.capacity());
        for &run in &self.run_order {
            let b = self.batches[run as usize];
            let (first, end) = (b.first as usize, (b.first + b.count) as usize);
            // ≤ MAX_SPRITES_PER_FRAME (2^24) instances: fits u32.
            let to = u32::try_from(self.sorted_instances.len()).unwrap_or(u32::MAX);
            self.sorted_instances
                .extend_from_slice(&self.instances[first..end]);
            match self.sorted_batches.last_mut() {
                Some(last) if (last.texture, last.space) == (b.texture, b.space) => {
                    last.count += b.count;
                }
                _ => self.sorted_batches.push(Batch { first: to, ..b }),
            }
        }
        std::mem::swap(&mut self.instances, &mut self.sorted_instances);
        std::mem::swap(&mut self.batches, &mut self.sorted_batches);
    }

    /// The instances of the last successful [`build`](Self::build), in draw order.
    #[must_use]
    pub fn instances(&self) -> &[SpriteInstance] {
        &self.instances
    }

    /// The batches of the last successful build, in draw order.
    #[must_use]
    pub fn batches(&self) -> &[Batch] {
        &self.batches
    }

    /// The view of the last successful build (`None` before the first or
    /// after a failed one): the renderer's projection.
    #[must_use]
    pub fn view(&self) -> Option<ViewRect> {
        self.view
    }

    /// The stats of the last build (all zero after a failed one).
    #[must_use]
    pub fn stats(&self) -> BatchStats {
        self.stats
    }

    /// How many instances the buffers hold without growing.
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.instances.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RED: [f32; 4] = [1.0, 0.0, 0.0, 1.0];

    fn params(alpha: f32) -> BatchParams {
        BatchParams {
            view: ViewRect::new(0.0, 0.0, 100.0, 100.0).unwrap(),
            alpha,
        }
    }

    fn textured(x: f32, tex: u32) -> Sprite {
        Sprite {
            texture: TextureId::from_index(tex),
            ..Sprite::quad([x, 50.0], [2.0, 2.0], RED)
        }
    }

    #[test]
    fn culls_sprites_outside_the_view_and_keeps_touching_ones() {
        let mut b = SpriteBatcher::default();
        let sprites = [
            Sprite::quad([50.0, 50.0], [10.0, 10.0], RED), // inside
            Sprite::quad([-4.0, 50.0], [10.0, 10.0], RED), // overlaps left edge
            Sprite::quad([-5.0, 50.0], [10.0, 10.0], RED), // touches left edge only: zero area
            Sprite::quad([105.0, 105.0], [10.0, 10.0], RED), // touches the top-right corner
            Sprite::quad([50.0, 200.0], [10.0, 10.0], RED), // above
            Sprite::quad([50.0, 50.0], [0.0, 10.0], RED),  // zero width
        ];
        let stats = b.build(&sprites, &params(1.0)).unwrap();
        assert_eq!(
            stats,
            BatchStats {
                input: 6,
                visible: 2,
                culled: 4,
                rejected: 0,
                batches: 1
            }
        );
        assert_eq!(b.instances()[1].position, [-4.0, 50.0]);
    }

    #[test]
    fn rotated_sprites_are_culled_by_their_bounding_circle() {
        let mut b = SpriteBatcher::default();
        // A 10×2 bar centered 5.5 left of the view, rotated 90°: its bounding
        // circle (radius ≈ 5.1) reaches into the view, the bar itself does not
        // — kept (conservative). Unrotated, its half-width 5 keeps it out.
        let mut s = Sprite::quad([-5.05, 50.0], [10.0, 2.0], RED);
        s.rotation = std::f32::consts::FRAC_PI_2;
        assert_eq!(b.build(&[s], &params(1.0)).unwrap().visible, 1);
        s.position = [-5.2, 50.0];
        s.prev_position = s.position;
        assert_eq!(b.build(&[s], &params(1.0)).unwrap().culled, 1);
    }

    #[test]
    fn interpolates_between_prev_and_current_position() {
        let mut b = SpriteBatcher::default();
        let mut s = Sprite::quad([20.0, 40.0], [2.0, 2.0], RED);
        s.prev_position = [10.0, 20.0];
        b.build(&[s], &params(0.0)).unwrap();
        assert_eq!(b.instances()[0].position, [10.0, 20.0]);
        b.build(&[s], &params(0.25)).unwrap();
        assert_eq!(b.instances()[0].position, [12.5, 25.0]);
        b.build(&[s], &params(1.0)).unwrap();
        assert_eq!(b.instances()[0].position, [20.0, 40.0]);
        // A sprite that does not move stays exactly put at any alpha.
        let still = Sprite::quad([0.1, 33.3], [2.0, 2.0], RED);
        b.build(&[still], &params(0.3)).unwrap();
        assert_eq!(b.instances()[0].position, [0.1, 33.3]);
    }

    #[test]
    fn batches_are_runs_of_equal_texture_in_input_order() {
        let mut b = SpriteBatcher::default();
        let sprites = [
            textured(10.0, 1),
            textured(11.0, 1),
            textured(500.0, 2), // culled: does not break the run
            textured(12.0, 1),
            textured(13.0, 0),
            textured(14.0, 1),
        ];
        let stats = b.build(&sprites, &params(1.0)).unwrap();
        assert_eq!(stats.batches, 3);
        let t = TextureId::from_index;
        assert_eq!(
            b.batches(),
            &[
                Batch {
                    texture: t(1),
                    space: Space::World,
                    first: 0,
                    count: 3
                },
                Batch {
                    texture: t(0),
                    space: Space::World,
                    first: 3,
                    count: 1
                },
                Batch {
                    texture: t(1),
                    space: Space::World,
                    first: 4,
                    count: 1
                },
            ]
        );
        let xs: Vec<f32> = b.instances().iter().map(|i| i.position[0]).collect();
        assert_eq!(xs, [10.0, 11.0, 12.0, 13.0, 14.0]);
    }

    #[test]
    fn non_finite_sprites_are_rejected_and_counted() {
        let mut b = SpriteBatcher::default();
        let mut nan_pos = Sprite::quad([f32::NAN, 1.0], [1.0, 1.0], RED);
        let inf_size = Sprite::quad([5.0, 5.0], [f32::INFINITY, 1.0], RED);
        let mut nan_rot = Sprite::quad([5.0, 5.0], [1.0, 1.0], RED);
        nan_rot.rotation = f32::NAN;
        let mut nan_prev = Sprite::quad([5.0, 5.0], [1.0, 1.0], RED);
        nan_prev.prev_position = [5.0, f32::NAN];
        nan_pos.prev_position = [1.0, 1.0];
        let ok = Sprite::quad([5.0, 5.0], [1.0, 1.0], RED);
        let (stats, events) = laige_core::diag::capture_events(|| {
            b.build(&[nan_pos, inf_size, nan_rot, nan_prev, ok], &params(0.5))
                .unwrap()
        });
        assert_eq!(
            (stats.input, stats.visible, stats.culled, stats.rejected),
            (5, 1, 0, 4)
        );
        let warn: Vec<String> = events
            .iter()
            .filter(|e| e.is(SPRITE_REJECTED))
            .map(ToString::to_string)
            .collect();
        insta::assert_debug_snapshot!(warn, @r#"
        [
            "WARN subsystem=sprite_batcher event=sprite_rejected rejected=4 input=5",
        ]
        "#);
    }

    #[test]
    fn bad_params_are_clear_errors_and_clear_the_output() {
        let mut b = SpriteBatcher::default();
        b.build(&[Sprite::default()], &params(1.0)).unwrap();
        assert_eq!(b.instances().len(), 1);
        for alpha in [-0.1, 1.5, f32::NAN] {
            let e = b.build(&[Sprite::default()], &params(alpha)).unwrap_err();
            assert_eq!(e.code(), ErrorCode::InvalidArgument);
            assert_eq!(e.field(), Some("alpha"));
            assert!(b.instances().is_empty() && b.batches().is_empty() && b.view().is_none());
        }
        insta::assert_snapshot!(
            b.build(&[], &params(1.5)).unwrap_err().to_string(),
            @"sprite_batcher/alpha_invalid: invalid argument: alpha = 1.5; accepted: 0.0..=1.0"
        );
        insta::assert_snapshot!(
            ViewRect::new(0.0, 5.0, 1.0, 5.0).unwrap_err().to_string(),
            @"sprite_batcher/view_invalid: invalid argument: view y range = [5, 5]; accepted: finite bounds with min_y < max_y"
        );
        assert!(ViewRect::new(f32::NAN, 0.0, 1.0, 1.0).is_err());
        assert!(ViewRect::new(0.0, 0.0, f32::INFINITY, 1.0).is_err());
    }

    #[test]
    fn empty_input_builds_nothing() {
        let mut b = SpriteBatcher::default();
        let stats = b.build(&[], &params(1.0)).unwrap();
        assert_eq!(stats, BatchStats::default());
        assert!(b.batches().is_empty());
        assert!(b.view().is_some());
    }

    #[test]
    fn steady_state_reuses_the_buffers() {
        let sprites: Vec<Sprite> = (0..1000)
            .map(|i| textured((i % 100) as f32, (i / 250) as u32))
            .collect();
        let mut b = SpriteBatcher::default();
        b.build(&sprites, &params(1.0)).unwrap();
        let (ptr, cap) = (b.instances().as_ptr(), b.capacity());
        for _ in 0..10 {
            b.build(&sprites, &params(0.5)).unwrap();
            assert_eq!((b.instances().as_ptr(), b.capacity()), (ptr, cap));
        }
        assert_eq!(b.batches().len(), 4);
    }

    #[test]
    fn instance_copies_every_render_field() {
        let mut b = SpriteBatcher::default();
        let s = Sprite {
            position: [3.0, 4.0],
            prev_position: [3.0, 4.0],
            size: [-2.0, 5.0],
            rotation: 0.5,
            color: [0.1, 0.2, 0.3, 0.4],
            uv_rect: [0.25, 0.5, 0.75, 1.0],
            texture: TextureId::from_index(7),
            shape: Shape::Circle,
            space: Space::World,
            layer: 3,
        };
        b.build(&[s], &params(1.0)).unwrap();
        assert_eq!(
            b.instances()[0],
            SpriteInstance {
                position: [3.0, 4.0],
                size: [-2.0, 5.0],
                rotation: 0.5,
                color: s.color,
                uv_rect: s.uv_rect,
                shape: 1.0,
            }
        );
    }

    #[test]
    fn layers_draw_in_order_and_stay_stable_within_a_layer() {
        let mut b = SpriteBatcher::default();
        let on = |x: f32, layer: u8, tex: u32| Sprite {
            layer,
            ..textured(x, tex)
        };
        // A HUD sprite (layer 9) first in the input, world sprites after.
        let sprites = [
            on(1.0, 9, 1),
            on(2.0, 0, 1),
            on(3.0, 5, 2),
            on(4.0, 0, 1),
            on(5.0, 9, 1),
        ];
        let stats = b.build(&sprites, &params(1.0)).unwrap();
        let xs: Vec<f32> = b.instances().iter().map(|i| i.position[0]).collect();
        assert_eq!(xs, [2.0, 4.0, 3.0, 1.0, 5.0]);
        // Runs: layer 0 (tex 1) ×2, layer 5 (tex 2), layer 9 (tex 1) ×2.
        let runs: Vec<(u32, u32)> = b
            .batches()
            .iter()
            .map(|b| (b.texture.index(), b.count))
            .collect();
        assert_eq!(runs, [(1, 2), (2, 1), (1, 2)]);
        assert_eq!(stats.batches, 3);
        // Steady state: the sort's buffers are reused too.
        b.build(&sprites, &params(1.0)).unwrap();
        let ptr = b.instances().as_ptr();
        for _ in 0..4 {
            b.build(&sprites, &params(1.0)).unwrap();
        }
        assert_eq!(b.instances().as_ptr(), ptr);
    }

    #[test]
    fn a_leading_camera_replaces_the_view_and_is_interpolated() {
        let mut b = SpriteBatcher::default();
        let mut cam = Sprite::camera(ViewRect::new(200.0, 0.0, 300.0, 50.0).unwrap());
        cam.prev_position = [150.0, 25.0]; // the previous view: 100..200
        let inside_new = textured(260.0, 1);
        let inside_old = textured(120.0, 1);
        let inside_params = textured(50.0, 1);
        let sprites = [cam, inside_new, inside_old, inside_params];
        let stats = b.build(&sprites, &params(1.0)).unwrap();
        assert_eq!((stats.input, stats.visible, stats.culled), (4, 1, 3));
        assert_eq!(b.view().unwrap().min(), [200.0, 0.0]);
        // Halfway: the view spans 150..250.
        b.build(&sprites, &params(0.5)).unwrap();
        assert_eq!(b.view().unwrap().min(), [150.0, 0.0]);
        assert_eq!(b.view().unwrap().max(), [250.0, 50.0]);
        // A camera later in the list is not drawn and changes nothing.
        let stats = b.build(&[inside_params, cam], &params(1.0)).unwrap();
        assert_eq!((stats.visible, stats.culled), (1, 1));
        assert_eq!(b.view(), Some(params(1.0).view));
        // An unusable camera is rejected; the frame keeps the params' view.
        let mut bad = cam;
        bad.size = [0.0, 10.0];
        let stats = b.build(&[bad, inside_params], &params(1.0)).unwrap();
        assert_eq!((stats.visible, stats.rejected), (1, 1));
        assert_eq!(b.view(), Some(params(1.0).view));
    }

    /// What `build` must produce, computed the plain way: keep the visible
    /// sprites in input order, sort them stably by layer, cut runs of equal
    /// texture and space.
    fn reference(sprites: &[Sprite], alpha: f32) -> (Vec<SpriteInstance>, Vec<Batch>) {
        let mut b = SpriteBatcher::default();
        let mut kept: Vec<(u8, TextureId, Space, SpriteInstance)> = Vec::new();
        for s in sprites {
            // One sprite at a time through the batcher: its culling and
            // instance, without its run logic.
            b.build(std::slice::from_ref(s), &params(alpha)).unwrap();
            if let Some(i) = b.instances().first() {
                kept.push((s.layer, s.texture, s.space, *i));
            }
        }
        kept.sort_by_key(|k| k.0);
        let instances = kept.iter().map(|k| k.3).collect();
        let mut batches: Vec<Batch> = Vec::new();
        for (i, k) in (0_u32..).zip(&kept) {
            match batches.last_mut() {
                Some(last) if (last.texture, last.space) == (k.1, k.2) => last.count += 1,
                _ => batches.push(Batch {
                    texture: k.1,
                    space: k.2,
                    first: i,
                    count: 1,
                }),
            }
        }
        (instances, batches)
    }

    #[test]
    fn one_pass_runs_match_the_plain_sort_and_cut() {
        // Scenes from a small deterministic stream: few layers, textures
        // and spaces so runs repeat, join and cross; some sprites culled.
        let mut state = 0x2545_F491_4F6C_DD1D_u64;
        let mut next = |m: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % m
        };
        let mut b = SpriteBatcher::default();
        for scene in 0..300 {
            let n = next(60) as usize;
            let sprites: Vec<Sprite> = (0..n)
                .map(|_| Sprite {
                    layer: [0, 0, 3, 7, 255][next(5) as usize],
                    space: if next(4) == 0 {
                        Space::Screen
                    } else {
                        Space::World
                    },
                    shape: if next(6) == 0 {
                        Shape::Circle
                    } else {
                        Shape::Quad
                    },
                    rotation: if next(3) == 0 { 0.7 } else { 0.0 },
                    ..textured(next(130) as f32 - 15.0, next(3) as u32)
                })
                .collect();
            // Sorted-by-layer scenes too: the path that joins without sorting.
            let mut ordered = sprites.clone();
            ordered.sort_by_key(|s| s.layer);
            for input in [&sprites, &ordered] {
                let stats = b.build(input, &params(0.5)).unwrap();
                let (instances, batches) = reference(input, 0.5);
                assert_eq!(b.instances(), &instances[..], "scene {scene}");
                assert_eq!(b.batches(), &batches[..], "scene {scene}");
                assert_eq!(stats.batches as usize, batches.len());
            }
        }
    }

    #[test]
    fn screen_sprites_are_not_culled_and_break_runs() {
        let mut b = SpriteBatcher::default();
        let hud = Sprite {
            space: Space::Screen,
            ..textured(900.0, 1) // outside the world view: kept
        };
        let stats = b
            .build(&[textured(1.0, 1), hud, textured(2.0, 1)], &params(1.0))
            .unwrap();
        assert_eq!((stats.visible, stats.culled), (3, 0));
        let spaces: Vec<Space> = b.batches().iter().map(|b| b.space).collect();
        assert_eq!(spaces, [Space::World, Space::Screen, Space::World]);
    }
}
