//! Recording a run as an animated GIF, with no server: which frames a time range makes
//! ([`Plan`]), and the encoder that turns the page's RGBA pictures into GIF bytes
//! ([`GifWriter`]), one frame at a time so the page never waits long for it.
//!
//! The rule for frames: one frame every `1/fps` simulated seconds, from `from` to `to`
//! included, and each frame is shown `1/fps` seconds — the animation plays the run at one
//! simulated second per second, whatever the page's speed.
//!
//! Colours go through a fixed palette (a 6×6×6 colour cube and a ramp of greys), shared by
//! every frame: no quantizer to run per frame, which keeps the encoding quick in the page.
//! The stage is mostly white, greys and a few flat colours, which the palette keeps well.

use gif::{Encoder, EncodingError, Frame, Repeat};

use crate::i18n::{locale, td_string};
use brokerlab_core::lessons::Lang;

/// The most frames one recording holds (about a minute at 5 frames per second).
pub const FRAMES_MAX: usize = 300;
/// Frames per second a recording may use; the default in the form.
pub const FPS_MIN: u32 = 1;
pub const FPS_MAX: u32 = 10;
pub const FPS_DEFAULT: u32 = 5;
/// The default length of a recording from the start, simulated seconds.
pub const DEFAULT_LENGTH_S: f64 = 20.0;
/// The widest picture a recording keeps, pixels (the stage is scaled down to it).
pub const WIDTH_MAX: f64 = 640.0;

/// The frames of a recording: at `from_s + k / fps` for `k` in `0..frames`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    pub from_s: f64,
    pub to_s: f64,
    pub fps: u32,
    pub frames: usize,
}

/// Why a recording cannot be made as asked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Refusal {
    /// `to` is not after `from` (or a bound is not a number).
    Empty,
    /// More than [`FRAMES_MAX`] frames would be needed.
    TooMany { frames: usize },
    /// The frames per second are not a whole number from [`FPS_MIN`] to [`FPS_MAX`].
    Fps,
}

impl Plan {
    /// The frames for `from_s..=to_s` at `fps` frames per second, the range kept within
    /// `0..=end_s` and `fps` within [`FPS_MIN`]..=[`FPS_MAX`].
    pub fn new(from_s: f64, to_s: f64, fps: u32, end_s: f64) -> Result<Plan, Refusal> {
        if !from_s.is_finite() || !to_s.is_finite() {
            return Err(Refusal::Empty);
        }
        let end_s = end_s.max(0.0);
        let (from_s, to_s) = (from_s.clamp(0.0, end_s), to_s.clamp(0.0, end_s));
        if to_s <= from_s {
            return Err(Refusal::Empty);
        }
        let fps = fps.clamp(FPS_MIN, FPS_MAX);
        // A tiny slack, so 0..4 s at 5 fps is 21 frames even when 4 × 5 rounds below 20.
        let frames = ((to_s - from_s) * f64::from(fps) + 1e-9).floor() as usize + 1;
        if frames > FRAMES_MAX {
            return Err(Refusal::TooMany { frames });
        }
        Ok(Plan {
            from_s,
            to_s,
            fps,
            frames,
        })
    }

    /// The plan for the form's fields as typed, numbers read the way the page's language
    /// writes them ("1,5" is 1.5 in either; "1.000" a thousand in Spanish). A range bound
    /// that is no number is an empty range; frames per second outside
    /// [`FPS_MIN`]..=[`FPS_MAX`], or not whole, are refused, not quietly changed.
    pub fn from_fields(
        from: &str,
        to: &str,
        fps: &str,
        end_s: f64,
        lang: Lang,
    ) -> Result<Plan, Refusal> {
        let seconds = |text: &str| crate::format::parse_number(text, lang).unwrap_or(f64::NAN);
        let fps = match crate::format::parse_number(fps, lang) {
            Some(f)
                if f.fract() == 0.0 && (f64::from(FPS_MIN)..=f64::from(FPS_MAX)).contains(&f) =>
            {
                f as u32
            }
            _ => return Err(Refusal::Fps),
        };
        Plan::new(seconds(from), seconds(to), fps, end_s)
    }

    /// The simulated time of frame `k`, seconds.
    pub fn time_of(&self, k: usize) -> f64 {
        self.from_s + k as f64 / f64::from(self.fps)
    }

    /// How long each frame shows, hundredths of a second (GIF's unit).
    pub fn delay_cs(&self) -> u16 {
        (100 / self.fps) as u16
    }
}

impl Refusal {
    /// One sentence for the page.
    pub fn text(self, lang: Lang) -> String {
        let l = locale(lang);
        match self {
            Refusal::Empty => td_string!(l, panels.record.empty).to_string(),
            Refusal::TooMany { frames } => {
                td_string!(l, panels.record.too_many, frames, max = FRAMES_MAX).to_string()
            }
            Refusal::Fps => {
                td_string!(l, panels.record.fps_bad, min = FPS_MIN, max = FPS_MAX).to_string()
            }
        }
    }
}

/// The picture size for a stage `width` × `height` CSS pixels: scaled down to at most
/// [`WIDTH_MAX`] wide (never up), at least one pixel, within GIF's 16-bit sizes.
pub fn picture_size(width: f64, height: f64) -> (u16, u16, f64) {
    let scale = if width > WIDTH_MAX {
        WIDTH_MAX / width
    } else {
        1.0
    };
    let side = |v: f64| (v * scale).round().clamp(1.0, f64::from(u16::MAX)) as u16;
    (side(width), side(height), scale)
}

/// Writes a GIF frame by frame; [`GifWriter::finish`] gives its bytes.
pub struct GifWriter {
    encoder: Encoder<Vec<u8>>,
    width: u16,
    height: u16,
    delay_cs: u16,
    frames: usize,
}

impl GifWriter {
    /// A looping GIF of `width` × `height` pixels whose frames each show `delay_cs`
    /// hundredths of a second.
    pub fn new(width: u16, height: u16, delay_cs: u16) -> Result<GifWriter, EncodingError> {
        let mut encoder = Encoder::new(Vec::new(), width, height, &palette())?;
        encoder.set_repeat(Repeat::Infinite)?;
        Ok(GifWriter {
            encoder,
            width,
            height,
            delay_cs,
            frames: 0,
        })
    }

    /// Adds a frame from RGBA pixels, row by row (alpha is ignored: the page draws on
    /// white). Refuses a buffer that is not `width × height × 4` bytes.
    pub fn add(&mut self, rgba: &[u8]) -> Result<(), EncodingError> {
        let pixels = usize::from(self.width) * usize::from(self.height);
        if rgba.len() != pixels * 4 {
            return Err(EncodingError::from(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "a frame of the wrong size",
            )));
        }
        let indices: Vec<u8> = rgba
            .chunks_exact(4)
            .map(|p| palette_index(p[0], p[1], p[2]))
            .collect();
        let mut frame = Frame::from_indexed_pixels(self.width, self.height, indices, None);
        frame.delay = self.delay_cs;
        self.encoder.write_frame(&frame)?;
        self.frames += 1;
        Ok(())
    }

    /// Frames written so far.
    pub fn frames(&self) -> usize {
        self.frames
    }

    /// The GIF's bytes (with its trailer).
    pub fn finish(self) -> Result<Vec<u8>, EncodingError> {
        self.encoder.into_inner()
    }
}

/// Levels of each channel in the colour cube.
const CUBE: [u8; 6] = [0, 51, 102, 153, 204, 255];
/// Greys after the cube (216 colours): 40 evenly spaced, black to white.
const GREYS: usize = 40;

/// The shared palette, RGB triples: the colour cube, then the greys.
fn palette() -> Vec<u8> {
    let mut out = Vec::with_capacity(256 * 3);
    for r in CUBE {
        for g in CUBE {
            for b in CUBE {
                out.extend([r, g, b]);
            }
        }
    }
    for i in 0..GREYS {
        let v = (i * 255 / (GREYS - 1)) as u8;
        out.extend([v, v, v]);
    }
    out
}

/// The nearest of the cube's levels to `v`, as its index.
fn cube_level(v: u8) -> usize {
    (usize::from(v) + 25) / 51
}

/// The palette entry nearest to a colour: the cube's, or a grey's when that is nearer
/// (pale and dark greys are most of the stage, and the cube has only six of them).
fn palette_index(r: u8, g: u8, b: u8) -> u8 {
    let (lr, lg, lb) = (cube_level(r), cube_level(g), cube_level(b));
    let cube = lr * 36 + lg * 6 + lb;
    let distance = |c: [u8; 3]| {
        let d = |a: u8, b: u8| (i32::from(a) - i32::from(b)).pow(2);
        d(c[0], r) + d(c[1], g) + d(c[2], b)
    };
    let cube_error = distance([CUBE[lr], CUBE[lg], CUBE[lb]]);
    let mean = (u32::from(r) + u32::from(g) + u32::from(b)) / 3;
    let grey = (mean as usize * (GREYS - 1) + 127) / 255;
    let v = (grey * 255 / (GREYS - 1)) as u8;
    if distance([v, v, v]) < cube_error {
        (216 + grey) as u8
    } else {
        cube as u8
    }
}

/// A number of seconds for a file name: whole seconds plainly ("20"), else one decimal
/// with a dot ("2.5").
pub fn name_seconds(s: f64) -> String {
    let tenths = (s.max(0.0) * 10.0).round() as u64;
    if tenths.is_multiple_of(10) {
        format!("{}", tenths / 10)
    } else {
        format!("{}.{}", tenths / 10, tenths % 10)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solid(width: u16, height: u16, rgb: [u8; 3]) -> Vec<u8> {
        let mut out = Vec::new();
        for _ in 0..usize::from(width) * usize::from(height) {
            out.extend([rgb[0], rgb[1], rgb[2], 255]);
        }
        out
    }

    /// A decoded frame: its RGBA pixels and its delay (hundredths of a second).
    type Decoded = (Vec<u8>, u16);

    /// Decodes `bytes`: the screen size and each frame.
    fn decode(bytes: &[u8]) -> ((u16, u16), Vec<Decoded>) {
        let mut options = gif::DecodeOptions::new();
        options.set_color_output(gif::ColorOutput::RGBA);
        let mut decoder = options.read_info(bytes).expect("a GIF");
        let size = (decoder.width(), decoder.height());
        let mut frames = Vec::new();
        while let Some(frame) = decoder.read_next_frame().expect("a frame") {
            frames.push((frame.buffer.to_vec(), frame.delay));
        }
        (size, frames)
    }

    #[test]
    fn an_encoded_recording_decodes_with_its_frames_size_and_colours() {
        let colours = [[255, 255, 255], [204, 0, 0], [0, 102, 204], [30, 41, 59]];
        let mut writer = GifWriter::new(7, 3, 20).expect("an encoder");
        for c in colours {
            writer.add(&solid(7, 3, c)).expect("a frame");
        }
        assert_eq!(writer.frames(), 4);
        let bytes = writer.finish().expect("bytes");
        assert_eq!(&bytes[..6], b"GIF89a");
        assert_eq!(bytes.last(), Some(&0x3B), "the trailer ends the file");
        let (size, frames) = decode(&bytes);
        assert_eq!(size, (7, 3));
        assert_eq!(frames.len(), 4);
        assert!(frames.iter().all(|(_, delay)| *delay == 20));
        // Colours on the palette come back exactly; the slate ink is near a grey.
        assert_eq!(&frames[0].0[..4], &[255, 255, 255, 255]);
        assert_eq!(&frames[1].0[20..24], &[204, 0, 0, 255]);
        assert_eq!(&frames[2].0[..3], &[0, 102, 204]);
        let ink = &frames[3].0[..3];
        let error: i32 = ink
            .iter()
            .zip([30, 41, 59])
            .map(|(&a, b)| (i32::from(a) - b).abs())
            .sum();
        assert!(error <= 45, "ink came back as {ink:?}");
    }

    #[test]
    fn a_frame_of_the_wrong_size_is_refused() {
        let mut writer = GifWriter::new(4, 4, 10).expect("an encoder");
        assert!(writer.add(&solid(4, 3, [0, 0, 0])).is_err());
        assert_eq!(writer.frames(), 0);
    }

    #[test]
    fn the_palette_has_256_colours_and_greys_map_to_greys() {
        assert_eq!(palette().len(), 256 * 3);
        let p = palette();
        for v in [0_u8, 17, 100, 128, 226, 241, 255] {
            let i = usize::from(palette_index(v, v, v));
            let back = &p[i * 3..i * 3 + 3];
            assert!(back[0] == back[1] && back[1] == back[2], "{v} → {back:?}");
            assert!(
                (i32::from(back[0]) - i32::from(v)).abs() <= 4,
                "{v} → {back:?}"
            );
        }
    }

    #[test]
    fn frames_are_one_per_fps_of_simulated_time_both_ends_included() {
        let plan = Plan::new(0.0, 4.0, 5, 180.0).expect("a plan");
        assert_eq!(plan.frames, 21);
        assert_eq!(plan.time_of(0), 0.0);
        assert_eq!(plan.time_of(20), 4.0);
        assert_eq!(plan.delay_cs(), 20);
        let plan = Plan::new(2.0, 3.5, 2, 180.0).expect("a plan");
        assert_eq!(plan.frames, 4);
        assert_eq!(plan.time_of(3), 3.5);
        // A range that does not fall on a frame stops at the last frame within it.
        assert_eq!(Plan::new(0.0, 1.3, 2, 10.0).map(|p| p.frames), Ok(3));
    }

    #[test]
    fn the_range_stays_within_the_run_and_fps_within_bounds() {
        let plan = Plan::new(-3.0, 50.0, 40, 10.0).expect("a plan");
        assert_eq!((plan.from_s, plan.to_s, plan.fps), (0.0, 10.0, FPS_MAX));
        assert_eq!(plan.frames, 101);
        assert_eq!(Plan::new(1.0, 2.0, 0, 10.0).map(|p| p.fps), Ok(FPS_MIN));
        assert_eq!(Plan::new(3.0, 3.0, 5, 10.0), Err(Refusal::Empty));
        assert_eq!(Plan::new(4.0, 2.0, 5, 10.0), Err(Refusal::Empty));
        assert_eq!(Plan::new(f64::NAN, 2.0, 5, 10.0), Err(Refusal::Empty));
    }

    #[test]
    fn the_fields_are_read_in_the_pages_language_and_bad_fps_are_refused() {
        use Lang::{En, Es};
        // A decimal comma is a decimal in either language (a number input dropped it: 15).
        for lang in [En, Es] {
            let plan = Plan::from_fields("1,5", "3", "2", 100.0, lang).expect("a plan");
            assert_eq!(
                (plan.from_s, plan.to_s, plan.fps, plan.frames),
                (1.5, 3.0, 2, 4)
            );
        }
        let plan = Plan::from_fields("1.000", "1.010,5", "1", 2_000.0, Es);
        assert_eq!(plan.map(|p| (p.from_s, p.to_s)), Ok((1_000.0, 1_010.5)));
        assert_eq!(
            Plan::from_fields("abc", "3", "5", 10.0, En),
            Err(Refusal::Empty)
        );
        for fps in ["0", "11", "2,5", "2.5", "", "abc", "-1"] {
            assert_eq!(
                Plan::from_fields("0", "3", fps, 10.0, En),
                Err(Refusal::Fps),
                "{fps:?}"
            );
        }
        assert_eq!(
            Refusal::Fps.text(En),
            "Frames per second: type a whole number from 1 to 10."
        );
        assert_eq!(
            Refusal::Fps.text(Es),
            "Fotogramas por segundo: escribe un número entero de 1 a 10."
        );
    }

    #[test]
    fn more_than_the_cap_is_refused_in_one_sentence() {
        assert_eq!(Plan::new(0.0, 59.8, 5, 500.0).map(|p| p.frames), Ok(300));
        let refused = Plan::new(0.0, 60.0, 5, 500.0);
        assert_eq!(refused, Err(Refusal::TooMany { frames: 301 }));
        let text = refused.unwrap_err().text(Lang::En);
        assert!(text.contains("301") && text.contains("300"), "{text}");
        let es = Refusal::TooMany { frames: 301 }.text(Lang::Es);
        assert!(es.contains("fotogramas"), "{es}");
    }

    #[test]
    fn pictures_are_scaled_down_to_the_widest_kept_never_up() {
        assert_eq!(picture_size(1280.0, 900.0), (640, 450, 0.5));
        assert_eq!(picture_size(500.0, 300.0), (500, 300, 1.0));
    }

    #[test]
    fn seconds_in_file_names_are_short() {
        assert_eq!(name_seconds(20.0), "20");
        assert_eq!(name_seconds(2.5), "2.5");
        assert_eq!(name_seconds(0.04), "0");
    }
}
