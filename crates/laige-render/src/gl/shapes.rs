//! Debug and simple-game shapes as [`Sprite`]s, so they batch with
//! everything else: a line is a rotated quad, a rectangle outline four
//! quads, a filled circle a quad with [`Shape::Circle`] (the fragment
//! shader keeps the inscribed disc, its edge anti-aliased).

use super::batcher::{Shape, Sprite};

impl Sprite {
    /// A line from `a` to `b`, `width` thick (a quad along the segment;
    /// square ends flush with `a` and `b`). A zero-length line has no area
    /// and is culled.
    ///
    /// ```
    /// use laige_render::gl::Sprite;
    /// let l = Sprite::line([0.0, 0.0], [10.0, 0.0], 2.0, [1.0; 4]);
    /// assert_eq!((l.position, l.size, l.rotation), ([5.0, 0.0], [10.0, 2.0], 0.0));
    /// ```
    #[must_use]
    pub fn line(a: [f32; 2], b: [f32; 2], width: f32, color: [f32; 4]) -> Self {
        let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
        let center = [(a[0] + b[0]) * 0.5, (a[1] + b[1]) * 0.5];
        Self {
            rotation: dy.atan2(dx),
            ..Self::quad(center, [dx.hypot(dy), width], color)
        }
    }

    /// A filled circle of `radius` around `center`.
    #[must_use]
    pub fn circle(center: [f32; 2], radius: f32, color: [f32; 4]) -> Self {
        Self {
            shape: Shape::Circle,
            ..Self::quad(center, [2.0 * radius, 2.0 * radius], color)
        }
    }

    /// The outline of the rectangle `min..max`, `width` thick, drawn inside
    /// the rectangle: four quads (bottom, top, left, right) that do not
    /// overlap, so a translucent colour stays even.
    ///
    /// ```
    /// use laige_render::gl::Sprite;
    /// let [bottom, top, left, right] = Sprite::rect_outline([0.0, 0.0], [10.0, 6.0], 1.0, [1.0; 4]);
    /// assert_eq!((bottom.position, bottom.size), ([5.0, 0.5], [10.0, 1.0]));
    /// assert_eq!((left.position, left.size), ([0.5, 3.0], [1.0, 4.0]));
    /// # let _ = (top, right);
    /// ```
    #[must_use]
    pub fn rect_outline(min: [f32; 2], max: [f32; 2], width: f32, color: [f32; 4]) -> [Self; 4] {
        let (w, h) = (max[0] - min[0], max[1] - min[1]);
        let t = width.min(w * 0.5).min(h * 0.5);
        let cx = (min[0] + max[0]) * 0.5;
        let cy = (min[1] + max[1]) * 0.5;
        let side_h = h - 2.0 * t;
        [
            Self::quad([cx, min[1] + t * 0.5], [w, t], color),
            Self::quad([cx, max[1] - t * 0.5], [w, t], color),
            Self::quad([min[0] + t * 0.5, cy], [t, side_h], color),
            Self::quad([max[0] - t * 0.5, cy], [t, side_h], color),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diagonal_line_is_rotated_and_as_long_as_the_segment() {
        let l = Sprite::line([0.0, 0.0], [3.0, 4.0], 1.0, [1.0; 4]);
        assert_eq!(l.position, [1.5, 2.0]);
        assert_eq!(l.size, [5.0, 1.0]);
        assert!((l.rotation - 4.0_f32.atan2(3.0)).abs() < 1e-6);
    }

    #[test]
    fn circle_is_a_circle_shaped_square() {
        let c = Sprite::circle([4.0, 5.0], 3.0, [1.0; 4]);
        assert_eq!(
            (c.position, c.size, c.shape),
            ([4.0, 5.0], [6.0, 6.0], Shape::Circle)
        );
    }

    #[test]
    fn outline_sides_tile_the_border_without_overlap() {
        let sides = Sprite::rect_outline([10.0, 20.0], [30.0, 30.0], 2.0, [1.0; 4]);
        let area: f32 = sides.iter().map(|s| s.size[0] * s.size[1]).sum();
        // Border area: 20×10 minus the 16×6 inside.
        assert_eq!(area, 200.0 - 96.0);
        assert_eq!(sides[3].position, [29.0, 25.0]);
    }
}
