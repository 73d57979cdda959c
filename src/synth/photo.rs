//! Real photographs on synthetic things: a scenario obstacle with `"photo": NAME` shows a
//! photograph of a real thing of that kind on its broad sides (`photos/`, licences in its
//! README), so the object detector sees a bicycle where the world has one. The photos are
//! compiled in; [`photo_texture`] decodes one into a colour [`Texture`].

use super::text::Texture;
use crate::aria::recording::image::decode_image;
use crate::sample::ImageFrame;

/// The photographs there are, by name.
pub const PHOTO_NAMES: &[&str] = &["bicycle", "car", "cup", "person"];

fn bytes(name: &str) -> Option<&'static [u8]> {
    Some(match name {
        "bicycle" => include_bytes!("photos/bicycle.jpg"),
        "car" => include_bytes!("photos/car.jpg"),
        "cup" => include_bytes!("photos/cup.jpg"),
        "person" => include_bytes!("photos/person.jpg"),
        _ => return None,
    })
}

/// The photograph `name` as a colour texture (texel values as they are in the file, 0–1),
/// or `None` for a name not in [`PHOTO_NAMES`] (the scenario check refuses those first) or a
/// photo that does not decode.
pub fn photo_texture(name: &str) -> Option<Texture> {
    let data = bytes(name)?;
    let img = decode_image(&ImageFrame::still(bytes::Bytes::from_static(data))).ok()?;
    let ch = usize::from(img.channels);
    let rgb = img
        .pixels
        .chunks_exact(ch)
        .map(|p| {
            let c = |i: usize| f32::from(p[i.min(ch - 1)]) / 255.0;
            [c(0), c(1), c(2)]
        })
        .collect();
    Some(Texture::photo(img.width as usize, img.height as usize, rgb))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_photo_decodes_in_colour() {
        for name in PHOTO_NAMES {
            let t = photo_texture(name).unwrap();
            assert!(t.width > 50 && t.height > 50, "{name}");
            assert_eq!(t.rgb.len(), t.width * t.height);
            // Sampled colour comes from the photo, not the sign's paper.
            let c = t.sample(0.5, 0.5);
            assert!(c.iter().all(|v| (0.0..=1.0).contains(v)), "{name}: {c:?}");
        }
        assert!(photo_texture("unicorn").is_none());
    }
}
