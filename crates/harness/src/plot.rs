//! Renders a report `Plot` to SVG and PNG with plotters, drawing text in the bundled DejaVu Sans.
//!
//! Line plots carry error bars (each point's `y_low..y_high`), optional log axes and labelled
//! vertical markers; bar plots group one bar per line over the categories. The legend is drawn
//! in its own column right of the chart so it never covers data.

use super::results::{Plot, PlotKind, Point};
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;
use std::sync::Once;

/// DejaVu Sans from Debian's `fonts-dejavu-core` (licence in `assets/fonts/LICENSE`): bundled so
/// that rendering needs no system font library.
static DEJAVU_SANS: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");
const FONT: &str = "sans-serif";

const WIDTH: u32 = 1100;
const HEIGHT: u32 = 620;
const LEGEND_WIDTH: u32 = 230;

/// Tableau 10: distinguishable colours, also for most colour-blind readers when paired with
/// the marker shapes below.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

fn register_font() {
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| {
        // The bytes are compiled in and known to parse; a failure would be a packaging bug.
        if plotters::style::register_font(FONT, FontStyle::Normal, DEJAVU_SANS).is_err() {
            panic!("bundled DejaVuSans.ttf does not parse");
        }
    });
}

fn colour(index: usize) -> RGBColor {
    PALETTE[index % PALETTE.len()]
}

/// Renders `plot` as an SVG document.
pub fn render_svg(plot: &Plot) -> Result<String, String> {
    register_font();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        draw(&root, plot)?;
        root.present()
            .map_err(|e| format!("plot {}: {e}", plot.file_stem))?;
    }
    Ok(svg)
}

/// Renders `plot` as a PNG file at `path`.
pub fn render_png(plot: &Plot, path: &Path) -> Result<(), String> {
    register_font();
    let root = BitMapBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    draw(&root, plot)?;
    root.present().map_err(|e| {
        format!(
            "plot {}: cannot write {}: {e}",
            plot.file_stem,
            path.display()
        )
    })
}

/// The visible data range of one axis.
#[derive(Clone, Copy, Debug, PartialEq)]
struct AxisRange {
    low: f64,
    high: f64,
}

fn usable(value: f64, log: bool) -> bool {
    value.is_finite() && (!log || value > 0.0)
}

/// Points that can be drawn on the chosen axes (log axes cannot show zero or negatives).
fn drawable(points: &[Point], log_x: bool, log_y: bool) -> Vec<Point> {
    points
        .iter()
        .filter(|p| usable(p.x, log_x) && usable(p.y, log_y))
        .map(|p| Point {
            x: p.x,
            y: p.y,
            y_low: if usable(p.y_low, log_y) {
                p.y_low.min(p.y)
            } else {
                p.y
            },
            y_high: if usable(p.y_high, log_y) {
                p.y_high.max(p.y)
            } else {
                p.y
            },
        })
        .collect()
}

/// Pads a data range so points and error bars do not sit on the frame.
fn padded(low: f64, high: f64, log: bool, from_zero: bool) -> AxisRange {
    if !low.is_finite() || !high.is_finite() {
        return if log {
            AxisRange {
                low: 1.0,
                high: 10.0,
            }
        } else {
            AxisRange {
                low: 0.0,
                high: 1.0,
            }
        };
    }
    if log {
        let (low, high) = if high > low {
            (low, high)
        } else {
            (low / 2.0, high * 2.0)
        };
        let span = (high / low).ln();
        let pad = (span * 0.06).max(0.05).exp();
        return AxisRange {
            low: low / pad,
            high: high * pad,
        };
    }
    let (low, high) = if high > low {
        (low, high)
    } else {
        (low - 0.5, high + 0.5)
    };
    let low = if from_zero && low >= 0.0 { 0.0 } else { low };
    let pad = (high - low) * 0.06;
    AxisRange {
        low: if low == 0.0 { 0.0 } else { low - pad },
        high: high + pad,
    }
}

/// The y range: bars (and line plots whose data starts near zero) start at zero on a linear
/// axis, so lengths compare honestly.
fn y_range(plot: &Plot, lines: &[Vec<Point>]) -> AxisRange {
    if plot.kind == PlotKind::StackedBar {
        let top = stack_tops(plot, lines).into_iter().fold(0.0f64, f64::max);
        // The lowest segment bounds a log axis from below, as a grouped bar's does.
        let least = lines
            .iter()
            .flatten()
            .map(|p| p.y)
            .filter(|&y| y > 0.0)
            .fold(top, f64::min);
        return padded(least, top, plot.log_y, true);
    }
    let low = lines
        .iter()
        .flatten()
        .map(|p| p.y_low)
        .fold(f64::INFINITY, f64::min);
    let high = lines
        .iter()
        .flatten()
        .map(|p| p.y_high)
        .fold(f64::NEG_INFINITY, f64::max);
    let from_zero = plot.kind.is_bars() || (low >= 0.0 && low < 0.5 * high);
    padded(low, high, plot.log_y, from_zero)
}

fn x_range(plot: &Plot, lines: &[Vec<Point>]) -> AxisRange {
    if plot.kind.is_bars() {
        let count = plot.categories.len().max(1) as f64;
        return AxisRange {
            low: -0.5,
            high: count - 0.5,
        };
    }
    let xs = lines.iter().flatten().map(|p| p.x).chain(
        plot.markers
            .iter()
            .map(|m| m.0)
            .filter(|&x| usable(x, plot.log_x)),
    );
    let (low, high) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
        (lo.min(x), hi.max(x))
    });
    padded(low, high, plot.log_x, false)
}

/// Axis labels naming bytes get binary units; others get compact decimal ones.
fn is_bytes_axis(label: &str) -> bool {
    let label = label.to_ascii_lowercase();
    label.contains("bytes")
        || label.contains("(b)")
        || label.contains("kib")
        || label.contains("mib")
}

/// A tick label: `16 KiB` on byte axes, `1.5M`, `250k`, `0.35` elsewhere.
pub fn format_tick(value: f64, bytes: bool) -> String {
    if !value.is_finite() {
        return String::new();
    }
    if bytes {
        return kiki_core::units::compact_bytes(value);
    }
    let magnitude = value.abs();
    let (scaled, suffix) = if magnitude >= 1e9 {
        (value / 1e9, "G")
    } else if magnitude >= 1e6 {
        (value / 1e6, "M")
    } else if magnitude >= 1e4 {
        (value / 1e3, "k")
    } else {
        (value, "")
    };
    format!("{}{suffix}", kiki_core::units::three_significant(scaled))
}

/// Draws the whole figure: title, chart, legend column.
fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, plot: &Plot) -> Result<(), String> {
    let fail = |e: DrawingAreaErrorKind<DB::ErrorType>| format!("plot {}: {e}", plot.file_stem);
    root.fill(&WHITE).map_err(fail)?;
    let (chart_area, legend_area) = root.split_horizontally(WIDTH - LEGEND_WIDTH);
    let lines: Vec<Vec<Point>> = plot
        .lines
        .iter()
        .map(|line| {
            drawable(
                &line.points,
                plot.log_x && plot.kind == PlotKind::Line,
                plot.log_y,
            )
        })
        .collect();
    let x = x_range(plot, &lines);
    let y = y_range(plot, &lines);
    let log_x = plot.log_x && plot.kind == PlotKind::Line;
    let bytes_x = is_bytes_axis(&plot.x_label);
    let bytes_y = is_bytes_axis(&plot.y_label);
    let x_base = if bytes_x { 2.0 } else { 10.0 };
    let y_base = if bytes_y { 2.0 } else { 10.0 };
    match (log_x, plot.log_y) {
        (false, false) => draw_chart(&chart_area, plot, &lines, x.low..x.high, y.low..y.high),
        (true, false) => draw_chart(
            &chart_area,
            plot,
            &lines,
            (x.low..x.high).log_scale().base(x_base),
            y.low..y.high,
        ),
        (false, true) => draw_chart(
            &chart_area,
            plot,
            &lines,
            x.low..x.high,
            (y.low..y.high).log_scale().base(y_base),
        ),
        (true, true) => draw_chart(
            &chart_area,
            plot,
            &lines,
            (x.low..x.high).log_scale().base(x_base),
            (y.low..y.high).log_scale().base(y_base),
        ),
    }?;
    draw_legend(&legend_area, plot).map_err(fail)
}

/// The legend column: one swatch and name per line, from the top of the chart area.
fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    plot: &Plot,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let text = TextStyle::from((FONT, 15).into_font()).color(&BLACK);
    let top = 60;
    for (index, line) in plot.lines.iter().enumerate() {
        let y = top + 24 * index as i32;
        let style = colour(index).filled();
        if plot.kind.is_bars() {
            area.draw(&Rectangle::new([(6, y - 6), (26, y + 6)], style))?;
        } else {
            area.draw(&PathElement::new(
                vec![(4, y), (28, y)],
                colour(index).stroke_width(2),
            ))?;
            area.draw(&marker_at((16, y), index, colour(index)))?;
        }
        area.draw(&Text::new(
            shorten(&line.name, 24),
            (34, y - 8),
            text.clone(),
        ))?;
    }
    Ok(())
}

/// Cuts a long legend entry so it stays inside the legend column.
fn shorten(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_string();
    }
    let kept: String = text.chars().take(max_chars - 1).collect();
    format!("{kept}…")
}

/// Circle, triangle, square, cross in turn, so lines differ in shape as well as colour.
fn marker_at<DB: DrawingBackend>(
    at: (i32, i32),
    index: usize,
    colour: RGBColor,
) -> DynElement<'static, DB, (i32, i32)> {
    let style = colour.filled();
    match (index / PALETTE.len() + index) % 4 {
        0 => Circle::new(at, 4, style).into_dyn(),
        1 => TriangleMarker::new(at, 5, style).into_dyn(),
        2 => Rectangle::new([(at.0 - 4, at.1 - 4), (at.0 + 4, at.1 + 4)], style).into_dyn(),
        _ => Cross::new(at, 5, colour.stroke_width(2)).into_dyn(),
    }
}

fn draw_chart<DB, X, Y>(
    area: &DrawingArea<DB, Shift>,
    plot: &Plot,
    lines: &[Vec<Point>],
    x_spec: X,
    y_spec: Y,
) -> Result<(), String>
where
    DB: DrawingBackend,
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let fail = |e: DrawingAreaErrorKind<DB::ErrorType>| format!("plot {}: {e}", plot.file_stem);
    let mut chart = ChartBuilder::on(area)
        .caption(&plot.title, (FONT, 22).into_font())
        .margin(12)
        .x_label_area_size(if plot.kind.is_bars() { 56 } else { 50 })
        .y_label_area_size(80)
        .build_cartesian_2d(x_spec, y_spec)
        .map_err(fail)?;
    let bytes_x = is_bytes_axis(&plot.x_label);
    let bytes_y = is_bytes_axis(&plot.y_label);
    let x_formatter = |v: &f64| format_tick(*v, bytes_x);
    let y_formatter = |v: &f64| format_tick(*v, bytes_y);
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(plot.x_label.as_str())
        .y_desc(plot.y_label.as_str())
        .label_style((FONT, 14).into_font())
        .axis_desc_style((FONT, 16).into_font())
        .y_label_formatter(&y_formatter)
        .y_labels(8);
    if plot.kind.is_bars() {
        // Category names are drawn below each group instead of numeric ticks.
        mesh.disable_x_mesh().x_labels(0);
    } else {
        mesh.x_label_formatter(&x_formatter).x_labels(10);
    }
    mesh.draw().map_err(fail)?;

    let y_floor = chart.y_range().start;
    let y_top = chart.y_range().end;
    match plot.kind {
        PlotKind::Line => draw_lines(&mut chart, lines).map_err(fail)?,
        PlotKind::Bar => draw_bars(&mut chart, plot, lines, y_floor).map_err(fail)?,
        PlotKind::StackedBar => draw_stacked_bars(&mut chart, plot, lines).map_err(fail)?,
    }
    draw_markers(&mut chart, plot, y_floor, y_top).map_err(fail)?;
    if plot.kind.is_bars() {
        draw_category_labels(area, &chart, plot, y_floor).map_err(fail)?;
    }
    if lines.iter().all(Vec::is_empty) {
        let (w, h) = area.dim_in_pixel();
        let style = TextStyle::from((FONT, 20).into_font()).color(&RED);
        area.draw(&Text::new(
            "no data",
            (w as i32 / 2 - 40, h as i32 / 2),
            style,
        ))
        .map_err(fail)?;
    }
    Ok(())
}

type Chart<'a, DB, X, Y> = ChartContext<'a, DB, Cartesian2d<X, Y>>;

fn draw_lines<DB, X, Y>(
    chart: &mut Chart<'_, DB, X, Y>,
    lines: &[Vec<Point>],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
where
    DB: DrawingBackend,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    for (index, points) in lines.iter().enumerate() {
        let colour = colour(index);
        chart.draw_series(LineSeries::new(
            points.iter().map(|p| (p.x, p.y)),
            colour.stroke_width(2),
        ))?;
        for p in points {
            draw_error_bar(chart, p, p.x, colour)?;
        }
        chart.draw_series(
            points
                .iter()
                .map(|p| EmptyElement::at((p.x, p.y)) + marker_at::<DB>((0, 0), index, colour)),
        )?;
    }
    Ok(())
}

/// A vertical bar from `y_low` to `y_high` with short caps (drawn only where it has length).
fn draw_error_bar<DB, X, Y>(
    chart: &mut Chart<'_, DB, X, Y>,
    point: &Point,
    x: f64,
    colour: RGBColor,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
where
    DB: DrawingBackend,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    if point.y_high <= point.y_low {
        return Ok(());
    }
    let style = colour.mix(0.9).stroke_width(1);
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(x, point.y_low), (x, point.y_high)],
        style,
    )))?;
    for end in [point.y_low, point.y_high] {
        chart.draw_series(std::iter::once(
            EmptyElement::at((x, end)) + PathElement::new(vec![(-4, 0), (4, 0)], style),
        ))?;
    }
    Ok(())
}

fn draw_bars<DB, X, Y>(
    chart: &mut Chart<'_, DB, X, Y>,
    plot: &Plot,
    lines: &[Vec<Point>],
    y_floor: f64,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
where
    DB: DrawingBackend,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let groups = lines.len().max(1) as f64;
    let group_width = 0.8;
    let bar_width = group_width / groups;
    for (index, points) in lines.iter().enumerate() {
        let colour = colour(index);
        for p in points {
            if p.x < -0.5 || p.x > plot.categories.len() as f64 - 0.5 {
                continue;
            }
            let left = p.x - group_width / 2.0 + bar_width * index as f64;
            let right = left + bar_width * 0.92;
            chart.draw_series(std::iter::once(Rectangle::new(
                [(left, y_floor), (right, p.y)],
                colour.filled(),
            )))?;
            draw_error_bar(chart, p, (left + right) / 2.0, BLACK)?;
        }
    }
    Ok(())
}

/// The height of each category's stack: the sum of its segments (negative ones left out).
fn stack_tops(plot: &Plot, lines: &[Vec<Point>]) -> Vec<f64> {
    let mut tops = vec![0.0; plot.categories.len()];
    for p in lines.iter().flatten() {
        if let Some(top) = tops.get_mut(p.x.round().max(0.0) as usize) {
            *top += p.y.max(0.0);
        }
    }
    tops
}

/// One bar per category, each line's segment drawn on top of the lines' before it.
fn draw_stacked_bars<DB, X, Y>(
    chart: &mut Chart<'_, DB, X, Y>,
    plot: &Plot,
    lines: &[Vec<Point>],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
where
    DB: DrawingBackend,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let mut bases = vec![0.0; plot.categories.len()];
    for (index, points) in lines.iter().enumerate() {
        let colour = colour(index);
        for p in points {
            let Some(base) = bases.get_mut(p.x.round().max(0.0) as usize) else {
                continue;
            };
            let height = p.y.max(0.0);
            let (left, right) = (p.x - 0.35, p.x + 0.35);
            chart.draw_series(std::iter::once(Rectangle::new(
                [(left, *base), (right, *base + height)],
                colour.filled(),
            )))?;
            *base += height;
        }
    }
    Ok(())
}

/// Dashed vertical lines with their labels, staggered in height so neighbours do not collide.
fn draw_markers<DB, X, Y>(
    chart: &mut Chart<'_, DB, X, Y>,
    plot: &Plot,
    y_floor: f64,
    y_top: f64,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
where
    DB: DrawingBackend,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let x_range = chart.x_range();
    let style = RGBColor(90, 90, 90).stroke_width(1);
    let text = TextStyle::from((FONT, 13).into_font()).color(&RGBColor(60, 60, 60));
    for (index, (x, label)) in plot.markers.iter().enumerate() {
        if !(x_range.start..=x_range.end).contains(x) {
            continue;
        }
        let dashes = 24;
        for dash in 0..dashes {
            let fraction = |k: f64| k / dashes as f64;
            let (a, b) = (fraction(dash as f64), fraction(dash as f64 + 0.5));
            let y_at = |t: f64| {
                if plot.log_y {
                    (y_floor.ln() + (y_top.ln() - y_floor.ln()) * t).exp()
                } else {
                    y_floor + (y_top - y_floor) * t
                }
            };
            chart.draw_series(std::iter::once(PathElement::new(
                vec![(*x, y_at(a)), (*x, y_at(b))],
                style,
            )))?;
        }
        let offset = 6 + 16 * (index % 3) as i32;
        chart.draw_series(std::iter::once(
            EmptyElement::at((*x, y_top)) + Text::new(label.clone(), (4, offset), text.clone()),
        ))?;
    }
    Ok(())
}

/// Category names centred under each bar group.
fn draw_category_labels<DB, X, Y>(
    area: &DrawingArea<DB, Shift>,
    chart: &Chart<'_, DB, X, Y>,
    plot: &Plot,
    y_floor: f64,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
where
    DB: DrawingBackend,
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let count = plot.categories.len().max(1);
    let size = if count > 8 { 12 } else { 14 };
    let style = TextStyle::from((FONT, size).into_font()).color(&BLACK).pos(
        plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Center,
            plotters::style::text_anchor::VPos::Top,
        ),
    );
    let (area_x, area_y) = area.get_base_pixel();
    // About 7 px per character at these sizes: keep each name within its group's width.
    let group_px = chart.backend_coord(&(1.0, y_floor)).0 - chart.backend_coord(&(0.0, y_floor)).0;
    let max_chars = ((group_px.max(40) as usize) / 7).max(6);
    for (index, name) in plot.categories.iter().enumerate() {
        let (px, py) = chart.backend_coord(&(index as f64, y_floor));
        // Alternate rows when many categories would otherwise run into each other.
        let row = if count > 6 {
            (index % 2) as i32 * 16
        } else {
            0
        };
        area.draw(&Text::new(
            shorten(name, max_chars),
            (px - area_x, py - area_y + 6 + row),
            style.clone(),
        ))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::PlotLine;

    fn sample_plot(kind: PlotKind, log_x: bool, log_y: bool) -> Plot {
        let lines = ["qugiy", "magic-plain", "bonanza"]
            .iter()
            .enumerate()
            .map(|(i, name)| PlotLine {
                name: name.to_string(),
                points: (0..6)
                    .map(|k| {
                        let y = 100.0 + 40.0 * i as f64 + 10.0 * k as f64;
                        Point {
                            x: if kind.is_bars() {
                                (k % 3) as f64
                            } else {
                                4096.0 * 4f64.powi(k)
                            },
                            y,
                            y_low: y * 0.9,
                            y_high: y * 1.1,
                        }
                    })
                    .collect(),
            })
            .collect();
        Plot {
            file_stem: "sample".into(),
            title: "Lookup rate against evaluation buffer size".into(),
            x_label: "evaluation buffer (bytes)".into(),
            y_label: "Mlookups/s".into(),
            log_x,
            log_y,
            kind,
            categories: if kind.is_bars() {
                vec!["rook".into(), "bishop".into(), "lance".into()]
            } else {
                Vec::new()
            },
            markers: vec![
                (32768.0, "L1d 32 KiB".into()),
                (1048576.0, "L2 1 MiB".into()),
            ],
            lines,
        }
    }

    #[test]
    fn every_axis_combination_renders_svg_with_text() {
        for kind in [PlotKind::Line, PlotKind::Bar, PlotKind::StackedBar] {
            for (log_x, log_y) in [(false, false), (true, false), (false, true), (true, true)] {
                let svg = render_svg(&sample_plot(kind, log_x, log_y)).unwrap();
                assert!(svg.starts_with("<svg"), "{kind:?} {log_x} {log_y}");
                assert!(svg.contains("magic-plain"));
                assert!(svg.contains("Lookup rate"));
                assert!(
                    svg.contains("<line") || svg.contains("<polyline") || svg.contains("<rect")
                );
            }
        }
    }

    #[test]
    fn empty_and_degenerate_plots_still_render() {
        let mut plot = sample_plot(PlotKind::Line, true, true);
        plot.lines.iter_mut().for_each(|l| {
            l.points.iter_mut().for_each(|p| {
                p.y = 0.0;
                p.y_low = 0.0;
                p.y_high = f64::NAN;
            })
        });
        assert!(render_svg(&plot).unwrap().contains("no data"));
        plot.lines.clear();
        plot.markers.clear();
        assert!(render_svg(&plot).unwrap().contains("no data"));
        let mut flat = sample_plot(PlotKind::Line, false, false);
        flat.lines.truncate(1);
        flat.lines[0].points.iter_mut().for_each(|p| {
            *p = Point {
                x: 1.0,
                y: 5.0,
                y_low: 5.0,
                y_high: 5.0,
            }
        });
        assert!(render_svg(&flat).unwrap().starts_with("<svg"));
    }

    #[test]
    fn png_has_signature() {
        let dir = std::env::temp_dir().join(format!("kiki-plot-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("sample.png");
        render_png(&sample_plot(PlotKind::Line, true, false), &path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        assert!(bytes.len() > 10_000);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn tick_labels() {
        assert_eq!(format_tick(16384.0, true), "16 KiB");
        assert_eq!(format_tick(128.0 * 1048576.0, true), "128 MiB");
        assert_eq!(format_tick(512.0, true), "512 B");
        assert_eq!(format_tick(1.5e6, false), "1.5M");
        assert_eq!(format_tick(250_000.0, false), "250k");
        assert_eq!(format_tick(0.35, false), "0.35");
        assert_eq!(format_tick(0.0, false), "0");
        assert_eq!(format_tick(2.5e9, false), "2.5G");
    }
}
