package dev.sluice.explorer;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Shape;
import java.awt.geom.Line2D;
import java.awt.geom.Rectangle2D;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.LegendItem;
import org.jfree.chart.LegendItemCollection;
import org.jfree.chart.annotations.XYTitleAnnotation;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.block.BlockBorder;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.StackedXYBarRenderer;
import org.jfree.chart.renderer.xy.StandardXYBarPainter;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.text.TextUtils;
import org.jfree.chart.title.LegendTitle;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.RectangleInsets;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.DefaultTableXYDataset;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * One chart per trace, drawn by JFreeChart: a lane per algorithm with its admitted (in the algorithm's colour)
 * and refused (grey) requests per time bin, and below them every algorithm's "admitted in the last window" curve
 * against the limit. With several keys the curve is the busiest key's at each moment, the quantity the limit
 * bounds. The curve is an envelope: each point is the highest the count reached within its bin, so a peak
 * narrower than a bin is drawn at its full height and the curve's top is the table's maximum.
 */
final class Charts {
    static final int WIDTH = 1200;
    private static final int LANE_HEIGHT = 72;
    private static final int CURVE_HEIGHT = 300;
    private static final int FRAME_HEIGHT = 170;
    /** Bars per lane at most, and points of the curve at most: enough to read, small enough as SVG. */
    private static final int MAX_BINS = 240;
    private static final int MAX_POINTS = 600;

    private static final Color REFUSED = new Color(0xBDBDBD);
    private static final Color LIMIT = new Color(0xB2182B);
    private static final Color GRID = new Color(0xE0E0E0);
    private static final Font LANE_FONT = new Font(Font.SANS_SERIF, Font.BOLD, 11);
    private static final Font TICK_FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 10);

    private Charts() {}

    static int height(int lanes) {
        return FRAME_HEIGHT + lanes * LANE_HEIGHT + CURVE_HEIGHT;
    }

    /** ColorBrewer's Set1 colours by lane: each lane keeps its colour, and a lane added after them takes the next. */
    private static final int[] PALETTE = {0xE41A1C, 0xFF7F00, 0x377EB8, 0x4DAF4A, 0x984EA3, 0xA65628, 0xF781BF,
        0x999999};

    static Color color(Algorithm algorithm) {
        return new Color(PALETTE[algorithm.index() % PALETTE.length]);
    }

    static JFreeChart chart(Settings settings, Trace trace, List<Run> runs) {
        AxisUnit unit = AxisUnit.of(trace.end() - trace.start());
        NumberAxis time = new NumberAxis("simulated time (" + unit.name + ")");
        time.setRange(0, (trace.end() - trace.start()) / unit.millis);
        time.setTickLabelFont(TICK_FONT);
        CombinedDomainXYPlot plot = new CombinedDomainXYPlot(time);
        plot.setGap(6);

        long bin = laneBinMillis(settings);
        double tallest = 0;
        for (Run run : runs) {
            tallest = Math.max(tallest, tallestBin(run, bin));
        }
        LegendItemCollection legend = new LegendItemCollection();
        for (Run run : runs) {
            plot.add(lane(settings, run, bin, unit, tallest), 1);
            legend.add(new LegendItem(run.algorithm().label(settings), null, null, null,
                    legendBox(), color(run.algorithm())));
        }
        legend.add(new LegendItem("refused", null, null, null, legendBox(), REFUSED));
        legend.add(new LegendItem("limit", null, null, null, new Line2D.Double(-8, 0, 8, 0), dashed(1.5f), LIMIT));
        plot.add(curvePanel(settings, runs, unit), CURVE_HEIGHT / LANE_HEIGHT);
        plot.setFixedLegendItems(legend);

        JFreeChart chart = new JFreeChart(trace.kind().id() + ": " + trace.kind().title(),
                new Font(Font.SANS_SERIF, Font.BOLD, 15), plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        chart.setPadding(new RectangleInsets(6, 10, 6, 14));
        LegendTitle legendTitle = chart.getLegend();
        legendTitle.setFrame(BlockBorder.NONE);
        legendTitle.setPosition(RectangleEdge.TOP);
        legendTitle.setItemFont(TICK_FONT.deriveFont(11f));
        int keys = trace.keyCount();
        chart.addSubtitle(0, new TextTitle(trace.kind().description(), TICK_FONT.deriveFont(11f)));
        chart.addSubtitle(1, new TextTitle(String.format(Locale.ROOT,
                "limit %d per %s%s · seed %d · %,d arrivals · bars: admitted and refused per %s · curve: admitted in"
                        + " the window ending at each moment%s",
                settings.limit(), Settings.formatDuration(settings.windowMillis()),
                keys == 1 ? "" : " on each of " + keys + " keys", trace.seed(), trace.size(),
                Settings.formatDuration(bin), keys == 1 ? "" : " (busiest key)"), TICK_FONT));
        return chart;
    }

    static void writePng(JFreeChart chart, Path file, int height) throws IOException {
        ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, height);
    }

    static void writeSvg(JFreeChart chart, Path file, int height, String idPrefix) throws IOException {
        SvgGraphics2D g2 = new SvgGraphics2D(WIDTH, height, idPrefix);
        // JFreeChart otherwise draws rotated labels as glyph outlines (a workaround for old JDKs' raster text):
        // as SVG text they stay text, a tenth of the size and searchable. Only the SVG changes, the PNG does not.
        boolean outlines = TextUtils.isUseDrawRotatedStringWorkaround();
        TextUtils.setUseDrawRotatedStringWorkaround(false);
        try {
            chart.draw(g2, new Rectangle2D.Double(0, 0, WIDTH, height));
        } finally {
            TextUtils.setUseDrawRotatedStringWorkaround(outlines);
        }
        Files.writeString(file, g2.document(), StandardCharsets.UTF_8);
    }

    /** Bins of a whole fraction of the window (so windows start on bin edges), at most {@link #MAX_BINS}. */
    static long laneBinMillis(Settings s) {
        long windows = s.windows();
        if (windows > MAX_BINS) {
            return s.windowMillis() * ((windows + MAX_BINS - 1) / MAX_BINS);
        }
        long perWindow = Math.min(10, MAX_BINS / windows);
        while (perWindow > 1 && s.windowMillis() % perWindow != 0) {
            perWindow--;
        }
        return s.windowMillis() / perWindow;
    }

    /** Every moment's count of admissions in the window ending then (busiest key), as an envelope per bin. */
    static XYSeries curve(Settings settings, Run run, AxisUnit unit) {
        Trace trace = run.trace();
        long duration = trace.end() - trace.start();
        long step = Math.max(1, (duration + MAX_POINTS - 1) / MAX_POINTS);
        int points = (int) ((duration + step - 1) / step);
        double[] peak = new double[points];
        for (int p = 0; p < points; p++) {
            long at = trace.start() + p * step;
            for (int key = 0; key < trace.keyCount(); key++) {
                peak[p] = Math.max(peak[p], run.admittedInWindowEndingAt(key, at));
            }
        }
        long window = run.windowMillis();
        for (long[] times : run.admittedTimes()) {
            int oldest = 0;
            for (int j = 0; j < times.length; j++) {
                while (times[oldest] <= times[j] - window) {
                    oldest++;
                }
                int p = (int) ((times[j] - trace.start()) / step);
                peak[p] = Math.max(peak[p], j - oldest + 1);
            }
        }
        XYSeries series = new XYSeries(run.algorithm().label(settings), false, true);
        for (int p = 0; p < points; p++) {
            series.add((p * step + step / 2.0) / unit.millis, peak[p], false);
        }
        return series;
    }

    private static XYPlot lane(Settings settings, Run run, long bin, AxisUnit unit, double tallest) {
        Trace trace = run.trace();
        int bins = (int) ((trace.end() - trace.start() + bin - 1) / bin);
        double[] admitted = new double[bins];
        double[] refused = new double[bins];
        for (int i = 0; i < trace.size(); i++) {
            int b = (int) ((trace.times()[i] - trace.start()) / bin);
            if (run.granted()[i]) {
                admitted[b]++;
            } else {
                refused[b]++;
            }
        }
        XYSeries admittedSeries = new XYSeries("admitted", false, false);
        XYSeries refusedSeries = new XYSeries("refused", false, false);
        for (int b = 0; b < bins; b++) {
            double x = (b * bin + bin / 2.0) / unit.millis;
            admittedSeries.add(x, admitted[b], false);
            refusedSeries.add(x, refused[b], false);
        }
        DefaultTableXYDataset data = new DefaultTableXYDataset();
        data.addSeries(admittedSeries);
        data.addSeries(refusedSeries);
        data.setIntervalWidth(bin / unit.millis);

        StackedXYBarRenderer bars = new StackedXYBarRenderer(0.0);
        bars.setBarPainter(new StandardXYBarPainter());
        bars.setShadowVisible(false);
        bars.setDrawBarOutline(false);
        bars.setSeriesPaint(0, color(run.algorithm()));
        bars.setSeriesPaint(1, REFUSED);

        NumberAxis count = new NumberAxis();
        count.setRange(0, Math.max(1, tallest) * 1.45); // headroom for the lane's name
        count.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
        count.setTickLabelFont(TICK_FONT);
        XYPlot lane = new XYPlot(data, null, count, bars);
        style(lane);
        TextTitle name = new TextTitle(String.format(Locale.ROOT, "%s: %,d admitted, %,d refused, at most %.2f× the"
                + " limit in a window", run.algorithm().label(settings), run.admitted(), run.refused(),
                run.maxInWindowRatio()), LANE_FONT);
        name.setBackgroundPaint(new Color(255, 255, 255, 210));
        lane.addAnnotation(new XYTitleAnnotation(0.004, 0.97, name, RectangleAnchor.TOP_LEFT));
        return lane;
    }

    private static XYPlot curvePanel(Settings settings, List<Run> runs, AxisUnit unit) {
        // The exact log last, so it is drawn on top of the curves that coincide with it.
        List<Run> ordered = new ArrayList<>(runs);
        ordered.sort(Comparator.comparing(run -> run.algorithm() == Algorithm.SLIDING_LOG));
        XYSeriesCollection curves = new XYSeriesCollection();
        XYLineAndShapeRenderer lines = new XYLineAndShapeRenderer(true, false);
        lines.setDrawSeriesLineAsPath(true);
        double highest = settings.limit();
        for (int i = 0; i < ordered.size(); i++) {
            Algorithm algorithm = ordered.get(i).algorithm();
            XYSeries curve = curve(settings, ordered.get(i), unit);
            highest = Math.max(highest, curve.getMaxY());
            curves.addSeries(curve);
            lines.setSeriesPaint(i, color(algorithm));
            lines.setSeriesStroke(i, new BasicStroke(algorithm == Algorithm.SLIDING_LOG ? 2.2f : 1.4f));
        }
        NumberAxis count = new NumberAxis("admitted in the last " + Settings.formatDuration(settings.windowMillis()));
        count.setRange(0, highest * 1.1);
        count.setTickLabelFont(TICK_FONT);
        XYPlot panel = new XYPlot(curves, null, count, lines);
        style(panel);
        ValueMarker limit = new ValueMarker(settings.limit(), LIMIT, dashed(1.5f));
        limit.setLabel("limit " + settings.limit());
        limit.setLabelFont(LANE_FONT);
        limit.setLabelPaint(LIMIT);
        limit.setLabelAnchor(RectangleAnchor.TOP_RIGHT);
        limit.setLabelTextAnchor(TextAnchor.BOTTOM_RIGHT);
        limit.setLabelBackgroundColor(new Color(255, 255, 255, 0));
        panel.addRangeMarker(limit);
        return panel;
    }

    private static void style(XYPlot plot) {
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(GRID);
        plot.setRangeGridlinePaint(GRID);
        plot.setOutlinePaint(GRID);
    }

    private static double tallestBin(Run run, long bin) {
        Trace trace = run.trace();
        int bins = (int) ((trace.end() - trace.start() + bin - 1) / bin);
        int[] perBin = new int[bins];
        int tallest = 0;
        for (int i = 0; i < trace.size(); i++) {
            int b = (int) ((trace.times()[i] - trace.start()) / bin);
            tallest = Math.max(tallest, ++perBin[b]);
        }
        return tallest;
    }

    private static BasicStroke dashed(float width) {
        return new BasicStroke(width, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f);
    }

    /** The time axis's unit: the largest of ms, s, min, h and d in which the trace is at least 1 long. */
    record AxisUnit(String name, double millis) {
        static AxisUnit of(long durationMillis) {
            if (durationMillis >= 10 * 86_400_000L) {
                return new AxisUnit("days", 86_400_000d);
            }
            if (durationMillis >= 10 * 3_600_000L) {
                return new AxisUnit("hours", 3_600_000d);
            }
            if (durationMillis >= 10 * 60_000L) {
                return new AxisUnit("minutes", 60_000d);
            }
            if (durationMillis >= 10 * 1_000L) {
                return new AxisUnit("seconds", 1_000d);
            }
            return new AxisUnit("ms", 1d);
        }
    }

    private static Shape legendBox() {
        return new Rectangle2D.Double(-6, -4, 12, 8);
    }
}
