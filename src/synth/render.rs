//! Ray-cast rendering of a scenario's world through a real camera calibration (pure
//! compute): one ray per pixel from the camera model's `unproject` (precomputed once per
//! camera in a [`RayTable`]), nearest hit among the floor, walls, obstacles, signs and
//! people, Lambert shading under a fixed sun with an ambient term and a distance falloff.
//! Surfaces have colours, modulated by the scene's seeded fine texture when it has one
//! ([`super::surface_texture`]); signs carry their own texture (their text, see
//! [`super::text`]); the floor is a two-colour checkerboard. [`render_rgb_into`] writes 8-bit RGB (the RGB
//! camera), [`render_grey_into`] the luminance (the SLAM cameras); both reuse the caller's
//! buffer and allocate nothing per pixel.

use nalgebra::{Isometry3, Point3, Vector3};

pub use super::rays::RayTable;
use super::rays::TILE_PX;
use super::scenario::{ObstacleKind, World};
use super::surface_texture::SurfaceTexture;
use super::text::Texture;
use super::tile_cull::{
    box_bounds, parallelogram_bounds, Bounds, Kind, Sphere, TileCuller, TileLists,
};

/// Direction toward the light (world, z up), not normalised.
const LIGHT_DIR: [f64; 3] = [0.3, 0.5, 1.0];
/// Farthest distance rendered, m.
pub const FAR_M: f64 = 100.0;
/// Ambient share of the lighting.
const AMBIENT: f32 = 0.3;
/// Sun share of the lighting (the rest is the viewer-facing fill).
const SUN: f32 = 0.2;
/// Distance over which light falls off toward [`FALLOFF_FLOOR`], m.
const FALLOFF_M: f64 = 12.0;
/// Share of the light left far away.
const FALLOFF_FLOOR: f32 = 0.55;
/// Grey level of pixels that see nothing (greyscale render).
pub const BACKGROUND_GREY: u8 = 20;
/// Colour of pixels that see nothing (RGB render).
pub const BACKGROUND_RGB: [u8; 3] = [24, 26, 34];

/// A linear RGB colour, each channel 0..=1.
pub type Rgb = [f32; 3];

/// An axis-aligned box with a colour.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    /// Minimum corner, m.
    pub min_m: [f64; 3],
    /// Maximum corner, m.
    pub max_m: [f64; 3],
    /// Surface colour.
    pub rgb: Rgb,
}

/// A planar rectangle `origin + a·u + b·v`, `a, b ∈ [0, 1]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quad {
    /// Corner, m.
    pub origin_m: [f64; 3],
    /// First edge, m (texture x grows along it).
    pub u_m: [f64; 3],
    /// Second edge, m (texture y grows against it: `b = 1` is the texture's top row).
    pub v_m: [f64; 3],
    /// Surface colour (without a texture).
    pub rgb: Rgb,
    /// Index into [`Scene::textures`] of the quad's texture, if any.
    pub texture: Option<usize>,
}

/// A vertical cylinder (a person, a post) with a flat top.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cylinder {
    /// Centre of the base, m.
    pub base_m: [f64; 3],
    /// Radius, m.
    pub radius_m: f64,
    /// Height, m.
    pub height_m: f64,
    /// Surface colour.
    pub rgb: Rgb,
}

/// What a ray hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Surface {
    /// The floor plane.
    Floor,
    /// `Scene::quads[i]`.
    Quad(usize),
    /// `Scene::boxes[i]`.
    Box(usize),
    /// `Scene::cylinders[i]`.
    Cylinder(usize),
}

/// The nearest intersection of a ray with a scene.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// Distance along the (unit) ray, m.
    pub t_m: f64,
    /// Unit normal facing the ray's origin.
    pub normal: Vector3<f64>,
    /// Surface colour at the hit (texture applied).
    pub rgb: Rgb,
    /// The surface.
    pub surface: Surface,
}

/// Render geometry of a world.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Scene {
    /// Floor height, m (an infinite checkerboard plane).
    pub floor_z_m: f64,
    /// The two checkerboard colours of the floor (1 m squares).
    pub floor_rgb: [Rgb; 2],
    /// Boxes.
    pub boxes: Vec<Aabb>,
    /// Rectangles (walls, signs).
    pub quads: Vec<Quad>,
    /// Vertical cylinders (people; updated per frame).
    pub cylinders: Vec<Cylinder>,
    /// Openings in the floor plane (drop-offs), `[min_x, min_y, max_x, max_y]` m: the
    /// floor is not there; a pit floor and riser quads are.
    pub holes: Vec<[f64; 4]>,
    /// Textures of textured quads.
    pub textures: Vec<Texture>,
    /// The fine texture of every other surface, if any (see [`SurfaceTexture`]).
    pub surface_texture: Option<SurfaceTexture>,
}

fn v3(a: [f64; 3]) -> Vector3<f64> {
    Vector3::new(a[0], a[1], a[2])
}

/// Default floor colours: two warm greys.
pub const FLOOR_RGB: [Rgb; 2] = [[0.55, 0.52, 0.47], [0.36, 0.34, 0.31]];
/// Wall colour: pale blue-grey.
pub const WALL_RGB: Rgb = [0.48, 0.54, 0.62];
/// Sign colour (the paper of the text texture): near-white.
pub const SIGN_RGB: Rgb = [0.93, 0.93, 0.88];
/// Floor of a drop-off (track bed, road): dark grey.
pub const PIT_RGB: Rgb = [0.22, 0.21, 0.20];
/// Step and curb colour: concrete with a yellow tint (safety edge).
pub const STEP_RGB: Rgb = [0.78, 0.70, 0.30];

/// Colour of an obstacle kind.
pub fn obstacle_rgb(kind: ObstacleKind) -> Rgb {
    match kind {
        ObstacleKind::Box => [0.62, 0.45, 0.25],
        ObstacleKind::Pole => [0.55, 0.57, 0.60],
        ObstacleKind::Bin => [0.15, 0.45, 0.20],
        ObstacleKind::LowBranch => [0.35, 0.24, 0.12],
        ObstacleKind::Table => [0.50, 0.30, 0.18],
    }
}

/// The two quads that show an obstacle's photograph: on its broad vertical sides, 5 mm
/// out, each laid so that a viewer facing it sees the photo the right way round (its
/// texture's x growing to the viewer's right).
fn photo_quads(o: &super::scenario::Obstacle) -> [Quad; 2] {
    let [cx, cy, z] = o.center_m;
    let [sx, sy, sz] = o.size_m;
    let gap = 0.005;
    let quad = |origin_m: [f64; 3], u_m: [f64; 3]| Quad {
        origin_m,
        u_m,
        v_m: [0.0, 0.0, sz],
        rgb: obstacle_rgb(o.kind),
        texture: None,
    };
    if sx >= sy {
        // Broad along x: the sides facing -y and +y.
        let (x0, x1) = (cx - sx / 2.0, cx + sx / 2.0);
        let (y0, y1) = (cy - sy / 2.0 - gap, cy + sy / 2.0 + gap);
        [
            quad([x0, y0, z], [sx, 0.0, 0.0]),
            quad([x1, y1, z], [-sx, 0.0, 0.0]),
        ]
    } else {
        let (y0, y1) = (cy - sy / 2.0, cy + sy / 2.0);
        let (x0, x1) = (cx - sx / 2.0 - gap, cx + sx / 2.0 + gap);
        [
            quad([x1, y0, z], [0.0, sy, 0.0]),
            quad([x0, y1, z], [0.0, -sy, 0.0]),
        ]
    }
}

impl Scene {
    /// The static render geometry of `world` (no people, no textures: signs are plain
    /// panels with `texture: None` until [`Scene::set_textures`] attaches their text).
    pub fn from_world(world: &World) -> Self {
        let mut boxes = Vec::new();
        let mut quads = Vec::new();
        for o in &world.obstacles {
            let [cx, cy, z] = o.center_m;
            let [sx, sy, sz] = o.size_m;
            boxes.push(Aabb {
                min_m: [cx - sx / 2.0, cy - sy / 2.0, z],
                max_m: [cx + sx / 2.0, cy + sy / 2.0, z + sz],
                rgb: o.rgb.unwrap_or_else(|| obstacle_rgb(o.kind)),
            });
        }
        let mut holes = Vec::new();
        for s in &world.steps {
            if s.rise_m >= 0.0 {
                boxes.push(step_box(s));
            } else {
                let (hole, pit) = drop_off(s);
                holes.push(hole);
                quads.extend(pit);
            }
        }
        for w in &world.walls {
            quads.push(Quad {
                origin_m: [w.from_m[0], w.from_m[1], world.floor_z_m],
                u_m: [w.to_m[0] - w.from_m[0], w.to_m[1] - w.from_m[1], 0.0],
                v_m: [0.0, 0.0, w.height_m],
                rgb: WALL_RGB,
                texture: None,
            });
        }
        // Photographs on the broad sides of the obstacles that carry one (after the walls,
        // before the signs: [`Scene::set_photos`] finds them there).
        for o in world.obstacles.iter().filter(|o| o.photo.is_some()) {
            quads.extend(photo_quads(o));
        }
        for s in &world.signs {
            let f = s.facing_deg.to_radians();
            // Along the sign, to the right of a reader facing it.
            let along = [-f.sin() * s.size_m[0], f.cos() * s.size_m[0], 0.0];
            // Slightly in front of whatever it hangs on.
            let c = [
                s.center_m[0] + 0.01 * f.cos(),
                s.center_m[1] + 0.01 * f.sin(),
                s.center_m[2],
            ];
            quads.push(Quad {
                origin_m: [
                    c[0] - along[0] / 2.0,
                    c[1] - along[1] / 2.0,
                    c[2] - s.size_m[1] / 2.0,
                ],
                u_m: along,
                v_m: [0.0, 0.0, s.size_m[1]],
                rgb: SIGN_RGB,
                texture: None,
            });
        }
        Self {
            floor_z_m: world.floor_z_m,
            floor_rgb: FLOOR_RGB,
            boxes,
            quads,
            cylinders: Vec::new(),
            holes,
            textures: Vec::new(),
            surface_texture: None,
        }
    }

    /// Attaches one texture per sign of the world, in order (the sign quads are the last
    /// ones of [`Scene::quads`], as [`Scene::from_world`] builds them).
    pub fn set_textures(&mut self, world: &World, textures: Vec<Texture>) {
        let first_sign = self.quads.len().saturating_sub(world.signs.len());
        for (i, _) in textures.iter().enumerate() {
            if let Some(q) = self.quads.get_mut(first_sign + i) {
                q.texture = Some(i);
            }
        }
        self.textures = textures;
    }

    /// Attaches each photo-carrying obstacle's photograph (`textures`, one per such obstacle
    /// of `world`, in order) to its two quads, after the sign textures
    /// ([`Scene::set_textures`] first: it replaces the texture list).
    pub fn set_photos(&mut self, world: &World, textures: Vec<Texture>) {
        let photos = world.obstacles.iter().filter(|o| o.photo.is_some()).count();
        let first = self
            .quads
            .len()
            .saturating_sub(world.signs.len() + 2 * photos);
        let base = self.textures.len();
        for (k, _) in textures.iter().enumerate() {
            for side in 0..2 {
                if let Some(q) = self.quads.get_mut(first + 2 * k + side) {
                    q.texture = Some(base + k);
                }
            }
        }
        self.textures.extend(textures);
    }

    /// Nearest hit of the ray `o + t·d` (`d` unit, `0 < t < FAR_M`). For many rays from
    /// one origin, [`Scene::view`] once and [`View::hit`] each ray.
    pub fn hit(&self, o: &Vector3<f64>, d: &Vector3<f64>) -> Option<Hit> {
        self.view(o).hit(d)
    }

    /// The scene seen from `o`: the per-object terms that do not depend on the ray.
    pub fn view(&self, o: &Vector3<f64>) -> View<'_> {
        self.view_in_cone(o, &Vector3::z(), std::f64::consts::PI)
    }

    /// The scene seen from `o` by rays within `half_angle_rad` of the unit `axis`: objects
    /// whose bounding sphere lies wholly outside that cone are left out (no ray of the cone
    /// can hit them, so the hits are the same as [`Scene::view`]'s, only cheaper).
    pub fn view_in_cone(
        &self,
        o: &Vector3<f64>,
        axis: &Vector3<f64>,
        half_angle_rad: f64,
    ) -> View<'_> {
        let culler = TileCuller::new(o, self.floor_z_m, self.bounds());
        let mut lists = TileLists::default();
        culler.cull(axis, half_angle_rad, &mut lists);
        let quads = self
            .quads
            .iter()
            .map(|q| {
                let (u, v) = (v3(q.u_m), v3(q.v_m));
                let n = u.cross(&v);
                let n = n.try_normalize(1e-300).unwrap_or(n);
                let w0 = o - v3(q.origin_m);
                PreparedQuad {
                    n,
                    w0,
                    n_w: -w0.dot(&n),
                    u_s: u / u.norm_squared().max(1e-300),
                    v_s: v / v.norm_squared().max(1e-300),
                }
            })
            .collect();
        View {
            scene: self,
            o: *o,
            quads,
            lists,
        }
    }

    /// Every object's bounds.
    fn bounds(&self) -> impl Iterator<Item = (Kind, usize, Bounds)> + '_ {
        let quads = self.quads.iter().enumerate().map(|(i, q)| {
            let b = parallelogram_bounds(v3(q.origin_m), v3(q.u_m), v3(q.v_m));
            (Kind::Quad, i, b)
        });
        let boxes = self
            .boxes
            .iter()
            .enumerate()
            .map(|(i, b)| (Kind::Box, i, box_bounds(v3(b.min_m), v3(b.max_m))));
        let cylinders = self.cylinders.iter().enumerate().map(|(i, c)| {
            let h = c.height_m / 2.0;
            let s = Sphere {
                centre: v3(c.base_m) + Vector3::new(0.0, 0.0, h),
                radius: c.radius_m.hypot(h),
            };
            let b = Bounds {
                whole: Some(s),
                pieces: Vec::new(),
            };
            (Kind::Cylinder, i, b)
        });
        quads.chain(boxes).chain(cylinders)
    }
}

/// Per-quad terms for one ray origin.
#[derive(Debug, Clone, Copy)]
struct PreparedQuad {
    /// Unit normal.
    n: Vector3<f64>,
    /// Ray origin minus the quad's corner.
    w0: Vector3<f64>,
    /// `n · (corner − origin)`.
    n_w: f64,
    /// `u / |u|²`.
    u_s: Vector3<f64>,
    /// `v / |v|²`.
    v_s: Vector3<f64>,
}

/// A scene seen from one origin ([`Scene::view`]): rays from there cost a few dot products
/// per object.
#[derive(Debug, Clone)]
pub struct View<'a> {
    scene: &'a Scene,
    o: Vector3<f64>,
    quads: Vec<PreparedQuad>,
    /// What rays of the view can hit.
    lists: TileLists,
}

impl View<'_> {
    /// Nearest hit of the ray from the view's origin along the unit `d` (`0 < t < FAR_M`).
    pub fn hit(&self, d: &Vector3<f64>) -> Option<Hit> {
        self.hit_among(d, &self.lists)
    }

    /// Per-tile culling of the view's objects ([`TileCuller::cull`] gives the lists for
    /// [`View::hit_among`]).
    pub fn tile_culler(&self) -> TileCuller {
        let l = &self.lists;
        let objects = self.scene.bounds().filter(|(kind, i, _)| match kind {
            Kind::Quad => l.quads.contains(i),
            Kind::Box => l.boxes.contains(i),
            Kind::Cylinder => l.cylinders.contains(i),
        });
        TileCuller::new(&self.o, self.scene.floor_z_m, objects)
    }

    /// The hit of the ray along the unit `d` with the floor plane (`0 < t < FAR_M`), if it
    /// meets the floor outside its holes.
    #[inline(always)]
    fn floor_hit(&self, d: &Vector3<f64>) -> Option<Hit> {
        let sc = self.scene;
        let o = &self.o;
        if d.z.abs() <= 1e-12 {
            return None;
        }
        let t = (sc.floor_z_m - o.z) / d.z;
        if !(t > 1e-6 && t < FAR_M) {
            return None;
        }
        let (x, y) = (o.x + d.x * t, o.y + d.y * t);
        let in_hole = sc
            .holes
            .iter()
            .any(|h| x >= h[0] && x <= h[2] && y >= h[1] && y <= h[3]);
        if in_hole {
            return None;
        }
        let checker = ((x.floor() + y.floor()) as i64).rem_euclid(2) as usize;
        Some(Hit {
            t_m: t,
            normal: Vector3::z(),
            rgb: sc.floor_rgb[checker.min(1)],
            surface: Surface::Floor,
        })
    }

    /// `hit` (along the unit `d`, by a pixel `px_angle_rad` wide) with the scene's surface
    /// texture applied to its colour; quads with their own texture (signs) keep it.
    #[inline(always)]
    pub fn textured(&self, mut hit: Hit, d: &Vector3<f64>, px_angle_rad: f64) -> Hit {
        let Some(tex) = &self.scene.surface_texture else {
            return hit;
        };
        if let Surface::Quad(i) = hit.surface {
            if self.scene.quads.get(i).is_some_and(|q| q.texture.is_some()) {
                return hit;
            }
        }
        let p = self.o + d * hit.t_m;
        let k = tex.albedo(&p, &hit.normal, d, hit.t_m, px_angle_rad);
        hit.rgb = [
            (hit.rgb[0] * k).min(1.0),
            (hit.rgb[1] * k).min(1.0),
            (hit.rgb[2] * k).min(1.0),
        ];
        hit
    }

    /// [`View::hit`] among the objects of `lists` only (the floor only if `lists.floor`):
    /// the same hit when `lists` holds every object the ray can hit.
    pub fn hit_among(&self, d: &Vector3<f64>, lists: &TileLists) -> Option<Hit> {
        let sc = self.scene;
        let o = &self.o;
        let mut best: Option<Hit> = None;
        let take = |best: &mut Option<Hit>, t: f64, normal: Vector3<f64>, rgb: Rgb, surface| {
            if t > 1e-6 && t < best.map_or(FAR_M, |b| b.t_m) {
                *best = Some(Hit {
                    t_m: t,
                    normal,
                    rgb,
                    surface,
                });
            }
        };
        if lists.floor {
            best = self.floor_hit(d);
        }
        for &i in &lists.quads {
            let (Some(q), Some(p)) = (sc.quads.get(i), self.quads.get(i)) else {
                continue;
            };
            let den = d.dot(&p.n);
            if den.abs() < 1e-12 {
                continue;
            }
            let t = p.n_w / den;
            if t <= 1e-6 || t >= best.map_or(FAR_M, |b| b.t_m) {
                continue;
            }
            let rel = p.w0 + d * t;
            let (a, b) = (rel.dot(&p.u_s), rel.dot(&p.v_s));
            if (0.0..=1.0).contains(&a) && (0.0..=1.0).contains(&b) {
                let rgb = match q.texture.and_then(|k| sc.textures.get(k)) {
                    Some(tex) => tex.sample(a, 1.0 - b),
                    None => q.rgb,
                };
                take(
                    &mut best,
                    t,
                    if den > 0.0 { -p.n } else { p.n },
                    rgb,
                    Surface::Quad(i),
                );
            }
        }
        let inv = Vector3::new(1.0 / d.x, 1.0 / d.y, 1.0 / d.z);
        for &i in &lists.boxes {
            let Some(bx) = sc.boxes.get(i) else {
                continue;
            };
            let (mut t0, mut t1, mut axis) = (f64::NEG_INFINITY, f64::INFINITY, 0usize);
            let mut inside = true;
            for k in 0..3 {
                if d[k].abs() < 1e-15 {
                    if o[k] < bx.min_m[k] || o[k] > bx.max_m[k] {
                        inside = false;
                    }
                    continue;
                }
                let (a, b) = ((bx.min_m[k] - o[k]) * inv[k], (bx.max_m[k] - o[k]) * inv[k]);
                let (near, far) = if a < b { (a, b) } else { (b, a) };
                if near > t0 {
                    t0 = near;
                    axis = k;
                }
                t1 = t1.min(far);
            }
            if inside && t0 <= t1 && t0 > 0.0 {
                let mut n = Vector3::zeros();
                n[axis] = -d[axis].signum();
                take(&mut best, t0, n, bx.rgb, Surface::Box(i));
            }
        }
        for &i in &lists.cylinders {
            let Some(c) = sc.cylinders.get(i) else {
                continue;
            };
            if let Some((t, n)) = hit_cylinder(c, o, d) {
                take(&mut best, t, n, c.rgb, Surface::Cylinder(i));
            }
        }
        best
    }
}

/// The box of a height step: a slab `|rise|` high and [`super::scenario::HeightStep`]'s
/// `depth_m` deep beyond its edge (a stair's first step, a curb), `width_m` wide across the
/// direction it faces.
pub fn step_box(s: &super::scenario::HeightStep) -> Aabb {
    let f = s.facing_deg.to_radians();
    let (c, sn) = (f.cos(), f.sin());
    // Edge centre, then the far side of the slab along the facing direction.
    let (ex, ey) = (s.edge_m[0], s.edge_m[1]);
    let (fx, fy) = (ex + c * s.depth_m, ey + sn * s.depth_m);
    let (hx, hy) = (-sn * s.width_m / 2.0, c * s.width_m / 2.0);
    let xs = [ex + hx, ex - hx, fx + hx, fx - hx];
    let ys = [ey + hy, ey - hy, fy + hy, fy - hy];
    let lo = |a: &[f64; 4]| a.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = |a: &[f64; 4]| a.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (z0, z1) = (s.edge_m[2], s.edge_m[2] + s.rise_m);
    Aabb {
        min_m: [lo(&xs), lo(&ys), z0.min(z1)],
        max_m: [hi(&xs), hi(&ys), z0.max(z1)],
        rgb: STEP_RGB,
    }
}

/// A drop-off: the floor opening beyond its edge and the quads of the pit (its floor
/// `|rise|` lower and the vertical face under the edge).
pub fn drop_off(s: &super::scenario::HeightStep) -> ([f64; 4], [Quad; 2]) {
    let slab = step_box(s);
    let hole = [slab.min_m[0], slab.min_m[1], slab.max_m[0], slab.max_m[1]];
    let f = s.facing_deg.to_radians();
    let (c, sn) = (f.cos(), f.sin());
    let across = [-sn * s.width_m, c * s.width_m, 0.0];
    let low = s.edge_m[2] + s.rise_m;
    let corner = [
        s.edge_m[0] - across[0] / 2.0,
        s.edge_m[1] - across[1] / 2.0,
        low,
    ];
    let floor = Quad {
        origin_m: corner,
        u_m: across,
        v_m: [c * s.depth_m, sn * s.depth_m, 0.0],
        rgb: PIT_RGB,
        texture: None,
    };
    let riser = Quad {
        origin_m: corner,
        u_m: across,
        v_m: [0.0, 0.0, -s.rise_m],
        rgb: STEP_RGB,
        texture: None,
    };
    (hole, [floor, riser])
}

/// Nearest hit of a unit ray with a vertical cylinder (side or top): `(t, normal)`.
fn hit_cylinder(c: &Cylinder, o: &Vector3<f64>, d: &Vector3<f64>) -> Option<(f64, Vector3<f64>)> {
    let (px, py) = (o.x - c.base_m[0], o.y - c.base_m[1]);
    let (z0, z1) = (c.base_m[2], c.base_m[2] + c.height_m);
    let mut best: Option<(f64, Vector3<f64>)> = None;
    let a = d.x * d.x + d.y * d.y;
    if a > 1e-15 {
        let b = px * d.x + py * d.y;
        let cc = px * px + py * py - c.radius_m * c.radius_m;
        let disc = b * b - a * cc;
        if disc >= 0.0 {
            let t = (-b - disc.sqrt()) / a;
            let z = o.z + d.z * t;
            if t > 0.0 && (z0..=z1).contains(&z) {
                let n = Vector3::new(px + d.x * t, py + d.y * t, 0.0) / c.radius_m;
                best = Some((t, n));
            }
        }
    }
    if d.z.abs() > 1e-12 && o.z > z1 {
        let t = (z1 - o.z) / d.z;
        let (x, y) = (px + d.x * t, py + d.y * t);
        if t > 0.0 && x * x + y * y <= c.radius_m * c.radius_m && best.is_none_or(|b| t < b.0) {
            best = Some((t, Vector3::z()));
        }
    }
    best
}

/// Shaded colour of a hit seen along the unit ray `d`: ambient, a sun from `light` and a
/// diffuse fill that lights surfaces facing the viewer (indoor light from everywhere),
/// dimmed with distance.
pub fn shade(hit: &Hit, light: &Vector3<f64>, d: &Vector3<f64>) -> Rgb {
    let sun = hit.normal.dot(light).max(0.0) as f32;
    let fill = (-hit.normal.dot(d)).max(0.0) as f32;
    let falloff = FALLOFF_FLOOR + (1.0 - FALLOFF_FLOOR) * (-hit.t_m / FALLOFF_M).exp() as f32;
    let k = (AMBIENT + SUN * sun + (1.0 - AMBIENT - SUN) * fill) * falloff;
    [hit.rgb[0] * k, hit.rgb[1] * k, hit.rgb[2] * k]
}

fn to_u8(v: f32) -> u8 {
    // Ties to even: one instruction (`round` is a library call), and an exact tie is rare.
    (v * 255.0).clamp(1.0, 255.0).round_ties_even() as u8
}

/// What one pixel sees.
#[derive(Debug, Clone, Copy)]
enum Px {
    /// Outside the calibrated region.
    Invalid,
    /// Nothing within [`FAR_M`].
    Sky,
    /// A shaded surface.
    Lit(Rgb),
}

/// What a tile's rays can hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// Nothing (sky).
    Nothing,
    /// Only the floor.
    Floor,
    /// Objects.
    Objects,
}

impl Reach {
    fn of(l: &TileLists) -> Self {
        match (
            l.quads.is_empty() && l.boxes.is_empty() && l.cylinders.is_empty(),
            l.floor,
        ) {
            (true, false) => Reach::Nothing,
            (true, true) => Reach::Floor,
            _ => Reach::Objects,
        }
    }
}

/// Pixels per image below which rendering stays on the calling thread.
const PARALLEL_MIN_PIXELS: usize = 100_000;

/// Colours every pixel of `rays` seen from `t_world_camera` into `out` (`N` bytes per
/// pixel, `out.len() = N · pixels`) through `px`, splitting the rows over the available
/// cores for large images (the result does not depend on the split).
fn trace<const N: usize, F: Fn(Px) -> [u8; N] + Sync>(
    scene: &Scene,
    rays: &RayTable,
    t_world_camera: &Isometry3<f64>,
    out: &mut [u8],
    px: F,
    threads: usize,
) {
    let light = v3(LIGHT_DIR).normalize();
    let o = (t_world_camera * Point3::origin()).coords;
    let r = t_world_camera.rotation.to_rotation_matrix();
    let axis = r * Vector3::z();
    let view = scene.view_in_cone(&o, &axis, rays.max_angle_rad);
    let culler = view.tile_culler();
    let w = rays.width as usize;
    let tile = TILE_PX as usize;
    // One band of tiles (`TILE_PX` rows): each tile's rays meet only the objects in its
    // cone.
    let px = &px;
    let band = |ty: u32, band_rays: &[[f32; 3]], out: &mut [u8], lists: &mut TileLists| {
        for tx in 0..rays.tiles_x() {
            match rays.tile(tx, ty) {
                Some(c) => culler.cull(&(r * c.axis), c.half_angle_rad, lists),
                // No valid pixel.
                None => lists.clear(),
            }
            let reach = Reach::of(lists);
            let x0 = tx as usize * tile;
            let x1 = (x0 + tile).min(w);
            for (row_rays, row_out) in band_rays.chunks_exact(w).zip(out.chunks_exact_mut(w * N)) {
                let (Some(row_rays), Some(row_out)) =
                    (row_rays.get(x0..x1), row_out.get_mut(x0 * N..x1 * N))
                else {
                    continue;
                };
                for (ray, dst) in row_rays.iter().zip(row_out.chunks_exact_mut(N)) {
                    let p = if ray[0].is_nan() {
                        Px::Invalid
                    } else if reach == Reach::Nothing {
                        Px::Sky
                    } else {
                        let d = r * Vector3::new(ray[0] as f64, ray[1] as f64, ray[2] as f64);
                        let hit = if reach == Reach::Floor {
                            view.floor_hit(&d)
                        } else {
                            view.hit_among(&d, lists)
                        };
                        hit.map_or(Px::Sky, |h| {
                            Px::Lit(shade(&view.textured(h, &d, rays.px_angle_rad), &light, &d))
                        })
                    };
                    dst.copy_from_slice(&px(p));
                }
            }
        }
    };
    let band_px = tile * w;
    let run = |first_band: usize, rays: &[[f32; 3]], out: &mut [u8]| {
        let mut lists = TileLists::default();
        for (k, (r, o)) in rays
            .chunks(band_px)
            .zip(out.chunks_mut(band_px * N))
            .enumerate()
        {
            band((first_band + k) as u32, r, o, &mut lists);
        }
    };
    let all = rays.rays();
    if threads <= 1 || all.len() < PARALLEL_MIN_PIXELS || band_px == 0 {
        run(0, all, out);
        return;
    }
    let per = all.len().div_ceil(band_px).div_ceil(threads);
    std::thread::scope(|s| {
        for (k, (r, o)) in all
            .chunks(per * band_px)
            .zip(out.chunks_mut(per * band_px * N))
            .enumerate()
        {
            s.spawn(move || run(k * per, r, o));
        }
    });
}

fn rgb_px(p: Px) -> [u8; 3] {
    match p {
        Px::Invalid => [0, 0, 0],
        Px::Sky => BACKGROUND_RGB,
        Px::Lit(c) => [to_u8(c[0]), to_u8(c[1]), to_u8(c[2])],
    }
}

fn grey_px(p: Px) -> [u8; 1] {
    [match p {
        Px::Invalid => 0,
        Px::Sky => BACKGROUND_GREY,
        Px::Lit(c) => to_u8(0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]),
    }]
}

/// Linear luminance of one pixel in 16 bits (`256 ×` the 8-bit level, little-endian),
/// 0 outside the calibrated region: headroom for an exposure applied after the render.
fn grey16_px(p: Px) -> [u8; 2] {
    let v: u16 = match p {
        Px::Invalid => 0,
        Px::Sky => u16::from(BACKGROUND_GREY) << 8,
        Px::Lit(c) => ((0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]) * 65_280.0)
            .clamp(256.0, 65_535.0)
            .round_ties_even() as u16,
    };
    v.to_le_bytes()
}

/// Threads a render may use: the available cores, at most 8.
pub fn default_threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8)
}

/// Renders `scene` seen by a camera at `t_world_camera` as 8-bit RGB into `out`
/// (`3 · width · height` bytes, row-major; resized as needed). Pixels outside the valid
/// region are black; rays that hit nothing are [`BACKGROUND_RGB`]. Uses
/// [`default_threads`]; the bytes do not depend on the thread count.
pub fn render_rgb_into(
    scene: &Scene,
    rays: &RayTable,
    t_world_camera: &Isometry3<f64>,
    out: &mut Vec<u8>,
) {
    render_rgb_threads(scene, rays, t_world_camera, out, default_threads());
}

/// [`render_rgb_into`] on at most `threads` threads (1: the calling thread only).
pub fn render_rgb_threads(
    scene: &Scene,
    rays: &RayTable,
    t_world_camera: &Isometry3<f64>,
    out: &mut Vec<u8>,
    threads: usize,
) {
    out.resize(rays.rays().len() * 3, 0);
    trace(scene, rays, t_world_camera, out, rgb_px, threads);
}

/// Renders the luminance of `scene` seen by a camera at `t_world_camera` into `out`
/// (`width · height` bytes, row-major; resized as needed). Pixels outside the valid region
/// are 0; rays that hit nothing are [`BACKGROUND_GREY`]. Uses [`default_threads`]; the
/// bytes do not depend on the thread count.
pub fn render_grey_into(
    scene: &Scene,
    rays: &RayTable,
    t_world_camera: &Isometry3<f64>,
    out: &mut Vec<u8>,
) {
    render_grey_threads(scene, rays, t_world_camera, out, default_threads());
}

/// [`render_grey_into`] on at most `threads` threads (1: the calling thread only).
pub fn render_grey_threads(
    scene: &Scene,
    rays: &RayTable,
    t_world_camera: &Isometry3<f64>,
    out: &mut Vec<u8>,
    threads: usize,
) {
    out.resize(rays.rays().len(), 0);
    trace(scene, rays, t_world_camera, out, grey_px, threads);
}

/// [`render_grey_threads`] at 16 bits: `2 · width · height` bytes, each pixel the
/// little-endian linear luminance × 65 280 (so `>> 8` is the 8-bit render's level), at least
/// 256 where valid and 0 outside the valid region.
pub fn render_grey16_threads(
    scene: &Scene,
    rays: &RayTable,
    t_world_camera: &Isometry3<f64>,
    out: &mut Vec<u8>,
    threads: usize,
) {
    out.resize(2 * rays.rays().len(), 0);
    trace(scene, rays, t_world_camera, out, grey16_px, threads);
}

/// [`render_grey_into`] into a new buffer.
pub fn render_grey(scene: &Scene, rays: &RayTable, t_world_camera: &Isometry3<f64>) -> Vec<u8> {
    let mut out = Vec::new();
    render_grey_into(scene, rays, t_world_camera, &mut out);
    out
}
