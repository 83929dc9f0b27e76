//! `--plot FILE.svg|FILE.png` for `frontier` and `advise`: emit delay against accuracy, one
//! frontier line per watermark kind, the three policies marked and named, the advised point
//! marked. The PNG's text is drawn with DejaVu Sans embedded from assets/fonts, so no system
//! font library is needed.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::io::staged::{Accepts, StagedFile};

/// The picture's size, pixels.
pub const PLOT_SIZE: (u32, u32) = (960, 600);

/// The font every label is drawn with (registered once under this family name).
const FONT: &str = "sans-serif";

/// A named line of points: (emit delay ms, accuracy %), by emit delay.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The watermark kind, as the legend names it.
    pub name: String,
    /// The points of its frontier.
    pub points: Vec<(f64, f64)>,
}

/// A named point on the picture: (emit delay ms, accuracy %).
#[derive(Debug, Clone, PartialEq)]
pub struct Mark {
    /// What the label says.
    pub name: String,
    /// Emit delay, ms.
    pub x: f64,
    /// Accuracy, percent.
    pub y: f64,
}

/// Everything a plot shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Plot {
    /// The caption over the chart.
    pub title: String,
    /// One frontier line per watermark kind.
    pub series: Vec<Series>,
    /// The three policies.
    pub policies: Vec<Mark>,
    /// The advised setting, if any.
    pub advised: Option<Mark>,
    /// The unit the emit delay axis counts in.
    pub unit: DelayUnit,
}

/// The unit of the emit delay axis: seconds for a stream on a relative clock, as the built-in
/// ones have always been drawn; on a wall clock the largest of seconds, minutes and hours of
/// which the axis spans at least two.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DelayUnit {
    /// Seconds.
    Seconds,
    /// Minutes.
    Minutes,
    /// Hours.
    Hours,
}

impl DelayUnit {
    /// The unit for an axis up to `largest` ms on `clock`.
    pub fn of(clock: &crate::engine::Clock, largest: f64) -> DelayUnit {
        if !clock.is_wall() || largest.is_nan() || largest < 2.0 * 60_000.0 {
            DelayUnit::Seconds
        } else if largest >= 2.0 * 3_600_000.0 {
            DelayUnit::Hours
        } else {
            DelayUnit::Minutes
        }
    }

    /// Milliseconds in one of it.
    fn ms(self) -> f64 {
        match self {
            DelayUnit::Seconds => 1_000.0,
            DelayUnit::Minutes => 60_000.0,
            DelayUnit::Hours => 3_600_000.0,
        }
    }

    /// The axis's caption.
    fn caption(self) -> &'static str {
        match self {
            DelayUnit::Seconds => "emit delay (s)",
            DelayUnit::Minutes => "emit delay (min)",
            DelayUnit::Hours => "emit delay (h)",
        }
    }
}

/// The picture formats, by the file's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlotFormat {
    /// Scalable vector graphics: text stays text.
    Svg,
    /// A bitmap.
    Png,
}

/// A plot file checked before any work: its format known and its unfinished copy taken
/// ([`StagedFile`]), so a bad path fails before a long sweep and nothing is at the path until
/// the picture is whole.
#[derive(Debug)]
pub struct PlotFile {
    /// Where it is written: staged beside the path.
    file: StagedFile,
    /// The path as given, for messages.
    path: PathBuf,
    /// Its format.
    pub format: PlotFormat,
}

impl PlotFile {
    /// Checks the extension (`.svg` or `.png`) and the path as every output's
    /// ([`StagedFile::create`]: an existing file only with `force`, never one of `inputs`),
    /// and takes its unfinished copy.
    pub fn create(path: &Path, force: bool, inputs: &[&Path]) -> Result<PlotFile> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        let format = match ext.as_deref() {
            Some("svg") => PlotFormat::Svg,
            Some("png") => PlotFormat::Png,
            _ => bail!(
                "--plot {}: give a file ending in .svg or .png",
                path.display()
            ),
        };
        let file = StagedFile::create(path, force, Accepts::Streams, inputs, "--plot")?;
        Ok(PlotFile {
            file,
            path: path.to_path_buf(),
            format,
        })
    }

    /// Draws `plot` whole in memory, writes it to the unfinished copy and puts it in place.
    pub fn write(self, plot: &Plot) -> Result<()> {
        let fail = |e: String| anyhow::anyhow!("--plot {}: {e}", self.path.display());
        // Both formats measure text with the font to lay labels out.
        register_font()?;
        let bytes = match self.format {
            PlotFormat::Svg => {
                let mut svg = String::new();
                {
                    let root = SVGBackend::with_string(&mut svg, PLOT_SIZE).into_drawing_area();
                    draw(&root, plot).map_err(fail)?;
                    root.present().map_err(|e| fail(e.to_string()))?;
                }
                svg.into_bytes()
            }
            PlotFormat::Png => {
                let (w, h) = PLOT_SIZE;
                let mut rgb = vec![0u8; w as usize * h as usize * 3];
                {
                    let root = BitMapBackend::with_buffer(&mut rgb, PLOT_SIZE).into_drawing_area();
                    draw(&root, plot).map_err(fail)?;
                    root.present().map_err(|e| fail(e.to_string()))?;
                }
                png_bytes(&rgb, PLOT_SIZE).map_err(|e| fail(e.to_string()))?
            }
        };
        (&self.file)
            .write_all(&bytes)
            .with_context(|| format!("--plot {}: cannot write it", self.path.display()))?;
        self.file
            .commit()
            .with_context(|| format!("--plot {}", self.path.display()))
    }
}

/// `--plot`'s file, if one is given, checked and taken before any work against the command's
/// `inputs`; a signal from then on removes its unfinished copy before the program exits.
pub fn open_plot<'a>(
    path: Option<&Path>,
    force: bool,
    inputs: impl Iterator<Item = &'a Path>,
) -> Result<Option<PlotFile>> {
    let Some(path) = path else {
        return Ok(None);
    };
    crate::cli::stop::clean_up_on_stop();
    let inputs: Vec<&Path> = inputs.collect();
    PlotFile::create(path, force, &inputs).map(Some)
}

/// Encodes an RGB picture of `size` as PNG.
fn png_bytes(rgb: &[u8], size: (u32, u32)) -> Result<Vec<u8>, png::EncodingError> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, size.0, size.1);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        // As the bitmap backend's own encoder does: a third of the size with no filter.
        enc.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
        let mut w = enc.write_header()?;
        w.write_image_data(rgb)?;
        w.finish()?;
    }
    Ok(out)
}

/// Registers the embedded font for bitmap text (once; later calls do nothing).
fn register_font() -> Result<()> {
    static ONCE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let ok = *ONCE.get_or_init(|| {
        plotters::style::register_font(
            FONT,
            FontStyle::Normal,
            include_bytes!("../../assets/fonts/DejaVuSans.ttf"),
        )
        .is_ok()
    });
    if !ok {
        bail!("the embedded font assets/fonts/DejaVuSans.ttf does not load");
    }
    Ok(())
}

/// The colours of the kinds' lines, in order.
const LINE_COLOURS: [RGBColor; 4] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
];

/// The axes' ranges: emit delay from 0 s to the largest shown, accuracy from a little below
/// the lowest shown to 100 %.
fn ranges(plot: &Plot) -> (f64, f64) {
    let xs = plot
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .chain(plot.policies.iter().map(|m| m.x))
        .chain(plot.advised.iter().map(|m| m.x))
        .filter(|x| x.is_finite());
    let ys = plot
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .chain(plot.policies.iter().map(|m| m.y))
        .chain(plot.advised.iter().map(|m| m.y))
        .filter(|y| y.is_finite());
    let x_max = xs.fold(1.0f64, f64::max) / plot.unit.ms();
    let y_min = ys.fold(100.0f64, f64::min);
    let pad = ((100.0 - y_min) * 0.05).max(0.05);
    (x_max * 1.05, (y_min - pad).max(0.0))
}

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, plot: &Plot) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(err)?;
    let (x_max, y_min) = ranges(plot);
    let mut chart = ChartBuilder::on(root)
        .caption(&plot.title, (FONT, 22))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(0.0..x_max, y_min..100.0 + (100.0 - y_min) * 0.04)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(plot.unit.caption())
        .y_desc("accuracy (%)")
        .label_style((FONT, 14))
        .axis_desc_style((FONT, 16))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(err)?;
    for (i, s) in plot.series.iter().enumerate() {
        let colour = LINE_COLOURS[i % LINE_COLOURS.len()];
        let pts: Vec<(f64, f64)> = s
            .points
            .iter()
            .filter(|p| p.0.is_finite() && p.1.is_finite())
            .map(|&(x, y)| (x / plot.unit.ms(), y))
            .collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), colour.stroke_width(2)))
            .map_err(err)?
            .label(format!("{} frontier", s.name))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], colour));
        chart
            .draw_series(pts.into_iter().map(|p| Circle::new(p, 3, colour.filled())))
            .map_err(err)?;
    }
    for m in &plot.policies {
        let p = (m.x / plot.unit.ms(), m.y);
        chart
            .draw_series([EmptyElement::at(p)
                + TriangleMarker::new((0, 0), 7, BLACK.filled())
                + Text::new(m.name.clone(), (8, -18), (FONT, 14))])
            .map_err(err)?;
    }
    if let Some(m) = &plot.advised {
        let p = (m.x / plot.unit.ms(), m.y);
        // Right of the mark, or left of it in the chart's right half (about 7.5 px a letter).
        let dx = if p.0 > x_max * 0.5 {
            -12 - (m.name.chars().count() as f64 * 7.5) as i32
        } else {
            10
        };
        let red = RGBColor(200, 0, 0);
        chart
            .draw_series([EmptyElement::at(p)
                + Cross::new((0, 0), 8, red.stroke_width(3))
                + Text::new(m.name.clone(), (dx, 8), (FONT, 14).into_font().color(&red))])
            .map_err(err)?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .label_font((FONT, 14))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(err)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_without_svg_or_png_is_refused() {
        let e = PlotFile::create(Path::new("/tmp/x.jpg"), false, &[]).unwrap_err();
        assert!(e.to_string().contains(".svg or .png"), "{e}");
    }

    #[test]
    fn an_unwritable_path_is_refused_before_work() {
        let e = PlotFile::create(Path::new("/nonexistent-dir/x.svg"), false, &[]).unwrap_err();
        assert!(format!("{e:#}").contains("does not exist"), "{e:#}");
    }
}
