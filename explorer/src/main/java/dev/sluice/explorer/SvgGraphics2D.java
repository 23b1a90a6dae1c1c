package dev.sluice.explorer;

import java.awt.AlphaComposite;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Composite;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.GradientPaint;
import java.awt.Graphics;
import java.awt.Graphics2D;
import java.awt.GraphicsConfiguration;
import java.awt.Image;
import java.awt.Paint;
import java.awt.Polygon;
import java.awt.Rectangle;
import java.awt.RenderingHints;
import java.awt.Shape;
import java.awt.Stroke;
import java.awt.font.FontRenderContext;
import java.awt.font.GlyphVector;
import java.awt.geom.AffineTransform;
import java.awt.geom.Arc2D;
import java.awt.geom.Area;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Line2D;
import java.awt.geom.NoninvertibleTransformException;
import java.awt.geom.Path2D;
import java.awt.geom.PathIterator;
import java.awt.geom.Rectangle2D;
import java.awt.geom.RoundRectangle2D;
import java.awt.image.BufferedImage;
import java.awt.image.BufferedImageOp;
import java.awt.image.ImageObserver;
import java.awt.image.RenderedImage;
import java.awt.image.renderable.RenderableImage;
import java.text.AttributedCharacterIterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The subset of {@link Graphics2D} that JFreeChart draws a chart with (shapes, lines, text, clips, transforms,
 * translucent colours, dashed strokes), written out as SVG 1.1. The explorer's own, so that it needs no SVG
 * library (the common one is GPL). Geometry is written in device coordinates with two decimals, and ids count
 * up from a fixed prefix, so the same drawing gives the same file. Text is measured with the JVM's fonts and
 * written as {@code <text>}, so a viewer with other fonts may set it a little wider or narrower. Images, XOR
 * mode and copyArea are not supported; a non-{@link Color} paint is drawn in one colour (a gradient's first).
 */
final class SvgGraphics2D extends Graphics2D {
    /** What every copy made by {@link #create()} draws into. */
    private static final class Canvas {
        final int width;
        final int height;
        final String idPrefix;
        final StringBuilder defs = new StringBuilder();
        final StringBuilder body = new StringBuilder();
        /** A clip's path data to its id, so a clip used by many elements is defined once. */
        final Map<String, String> clipIds = new LinkedHashMap<>();
        /** Text is measured on a raster with the same hints, so the layout is the PNG's of the same chart. */
        final Graphics2D measure = new BufferedImage(1, 1, BufferedImage.TYPE_INT_ARGB).createGraphics();

        Canvas(int width, int height, String idPrefix) {
            this.width = width;
            this.height = height;
            this.idPrefix = idPrefix;
        }
    }

    private final Canvas canvas;
    private AffineTransform transform = new AffineTransform();
    /** In device coordinates; null for none. */
    private Shape clip;
    private Paint paint = Color.BLACK;
    private Color background = Color.WHITE;
    private Stroke stroke = new BasicStroke(1f);
    private Font font = new Font(Font.SANS_SERIF, Font.PLAIN, 12);
    private Composite composite = AlphaComposite.SrcOver;
    private final RenderingHints hints = new RenderingHints(null);

    /** A blank drawing of the given size; {@code idPrefix} starts the id of every element it defines. */
    SvgGraphics2D(int width, int height, String idPrefix) {
        this.canvas = new Canvas(width, height, idPrefix);
    }

    private SvgGraphics2D(SvgGraphics2D from) {
        this.canvas = from.canvas;
        this.transform = new AffineTransform(from.transform);
        this.clip = from.clip;
        this.paint = from.paint;
        this.background = from.background;
        this.stroke = from.stroke;
        this.font = from.font;
        this.composite = from.composite;
        this.hints.putAll(from.hints);
    }

    /** The whole document drawn so far, by this graphics and every copy of it. */
    String document() {
        StringBuilder svg = new StringBuilder(canvas.defs.length() + canvas.body.length() + 256);
        svg.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
                .append("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"").append(canvas.width)
                .append("\" height=\"").append(canvas.height).append("\" viewBox=\"0 0 ").append(canvas.width)
                .append(' ').append(canvas.height).append("\">\n");
        if (!canvas.defs.isEmpty()) {
            svg.append("<defs>\n").append(canvas.defs).append("</defs>\n");
        }
        return svg.append(canvas.body).append("</svg>\n").toString();
    }

    // ---- drawing

    @Override
    public void draw(Shape shape) {
        StringBuilder out = canvas.body;
        if (!(stroke instanceof BasicStroke basic)) {
            fill(stroke.createStrokedShape(shape));
            return;
        }
        if (shape instanceof Line2D line && axisAligned()) {
            double[] p = {line.getX1(), line.getY1(), line.getX2(), line.getY2()};
            transform.transform(p, 0, p, 0, 2);
            out.append("<line x1=\"").append(num(p[0])).append("\" y1=\"").append(num(p[1]))
                    .append("\" x2=\"").append(num(p[2])).append("\" y2=\"").append(num(p[3])).append('"');
        } else {
            out.append("<path fill=\"none\" d=\"").append(pathData(shape, transform)).append('"');
        }
        colour("stroke", paint);
        out.append(" stroke-width=\"").append(num(basic.getLineWidth() * scale())).append('"');
        if (basic.getDashArray() != null) {
            out.append(" stroke-dasharray=\"");
            float[] dashes = basic.getDashArray();
            for (int i = 0; i < dashes.length; i++) {
                out.append(i == 0 ? "" : ",").append(num(dashes[i] * scale()));
            }
            out.append('"');
            if (basic.getDashPhase() != 0) {
                out.append(" stroke-dashoffset=\"").append(num(basic.getDashPhase() * scale())).append('"');
            }
        }
        out.append(switch (basic.getEndCap()) {
            case BasicStroke.CAP_ROUND -> " stroke-linecap=\"round\"";
            case BasicStroke.CAP_SQUARE -> " stroke-linecap=\"square\"";
            default -> "";
        });
        out.append(switch (basic.getLineJoin()) {
            case BasicStroke.JOIN_ROUND -> " stroke-linejoin=\"round\"";
            case BasicStroke.JOIN_BEVEL -> " stroke-linejoin=\"bevel\"";
            default -> basic.getMiterLimit() == 4f ? "" : " stroke-miterlimit=\"" + num(basic.getMiterLimit()) + '"';
        });
        clipReference();
        out.append("/>\n");
    }

    @Override
    public void fill(Shape shape) {
        Rectangle2D bounds = shape.getBounds2D();
        if (bounds.getWidth() == 0 || bounds.getHeight() == 0) {
            return; // a shape without area paints nothing (JFreeChart fills empty bars)
        }
        StringBuilder out = canvas.body;
        if (shape instanceof Rectangle2D r && axisAligned()) {
            double[] p = {r.getMinX(), r.getMinY(), r.getMaxX(), r.getMaxY()};
            transform.transform(p, 0, p, 0, 2);
            out.append("<rect x=\"").append(num(Math.min(p[0], p[2]))).append("\" y=\"")
                    .append(num(Math.min(p[1], p[3]))).append("\" width=\"").append(num(Math.abs(p[2] - p[0])))
                    .append("\" height=\"").append(num(Math.abs(p[3] - p[1]))).append('"');
        } else {
            out.append("<path d=\"").append(pathData(shape, transform)).append('"');
            if (shape.getPathIterator(null).getWindingRule() == PathIterator.WIND_EVEN_ODD) {
                out.append(" fill-rule=\"evenodd\"");
            }
        }
        colour("fill", paint);
        clipReference();
        out.append("/>\n");
    }

    @Override
    public void drawString(String text, float x, float y) {
        if (text == null || text.isEmpty()) {
            return;
        }
        StringBuilder out = canvas.body;
        boolean translated = transform.getShearX() == 0 && transform.getShearY() == 0 && transform.getScaleX() == 1
                && transform.getScaleY() == 1;
        // A clip on an element applies in that element's own coordinates, after its transform: a rotated text
        // gets its device-space clip from a group around it instead.
        boolean group = !translated && clip != null;
        if (group) {
            out.append("<g");
            clipReference();
            out.append('>');
        }
        out.append("<text");
        if (translated) {
            out.append(" x=\"").append(num(x + transform.getTranslateX())).append("\" y=\"")
                    .append(num(y + transform.getTranslateY())).append('"');
        } else {
            out.append(" transform=\"matrix(").append(num(transform.getScaleX())).append(',')
                    .append(num(transform.getShearY())).append(',').append(num(transform.getShearX())).append(',')
                    .append(num(transform.getScaleY())).append(',').append(num(transform.getTranslateX())).append(',')
                    .append(num(transform.getTranslateY())).append(")\" x=\"").append(num(x)).append("\" y=\"")
                    .append(num(y)).append('"');
        }
        out.append(" font-family=\"").append(family(font)).append("\" font-size=\"").append(num(font.getSize2D()))
                .append('"');
        if (font.isBold()) {
            out.append(" font-weight=\"bold\"");
        }
        if (font.isItalic()) {
            out.append(" font-style=\"italic\"");
        }
        colour("fill", paint);
        if (!group) {
            clipReference();
        }
        out.append(" xml:space=\"preserve\">");
        escape(text, out);
        out.append(group ? "</text></g>\n" : "</text>\n");
    }

    @Override
    public void drawString(String text, int x, int y) {
        drawString(text, (float) x, (float) y);
    }

    @Override
    public void drawString(AttributedCharacterIterator text, float x, float y) {
        StringBuilder s = new StringBuilder();
        for (char c = text.first(); c != AttributedCharacterIterator.DONE; c = text.next()) {
            s.append(c);
        }
        drawString(s.toString(), x, y);
    }

    @Override
    public void drawString(AttributedCharacterIterator text, int x, int y) {
        drawString(text, (float) x, (float) y);
    }

    @Override
    public void drawGlyphVector(GlyphVector glyphs, float x, float y) {
        fill(glyphs.getOutline(x, y));
    }

    @Override
    public void drawLine(int x1, int y1, int x2, int y2) {
        draw(new Line2D.Double(x1, y1, x2, y2));
    }

    @Override
    public void fillRect(int x, int y, int width, int height) {
        fill(new Rectangle(x, y, width, height));
    }

    @Override
    public void clearRect(int x, int y, int width, int height) {
        Paint saved = paint;
        paint = background;
        fillRect(x, y, width, height);
        paint = saved;
    }

    @Override
    public void drawRoundRect(int x, int y, int width, int height, int arcWidth, int arcHeight) {
        draw(new RoundRectangle2D.Double(x, y, width, height, arcWidth, arcHeight));
    }

    @Override
    public void fillRoundRect(int x, int y, int width, int height, int arcWidth, int arcHeight) {
        fill(new RoundRectangle2D.Double(x, y, width, height, arcWidth, arcHeight));
    }

    @Override
    public void drawOval(int x, int y, int width, int height) {
        draw(new Ellipse2D.Double(x, y, width, height));
    }

    @Override
    public void fillOval(int x, int y, int width, int height) {
        fill(new Ellipse2D.Double(x, y, width, height));
    }

    @Override
    public void drawArc(int x, int y, int width, int height, int startAngle, int arcAngle) {
        draw(new Arc2D.Double(x, y, width, height, startAngle, arcAngle, Arc2D.OPEN));
    }

    @Override
    public void fillArc(int x, int y, int width, int height, int startAngle, int arcAngle) {
        fill(new Arc2D.Double(x, y, width, height, startAngle, arcAngle, Arc2D.PIE));
    }

    @Override
    public void drawPolyline(int[] xPoints, int[] yPoints, int nPoints) {
        Path2D path = new Path2D.Double();
        for (int i = 0; i < nPoints; i++) {
            if (i == 0) {
                path.moveTo(xPoints[i], yPoints[i]);
            } else {
                path.lineTo(xPoints[i], yPoints[i]);
            }
        }
        draw(path);
    }

    @Override
    public void drawPolygon(int[] xPoints, int[] yPoints, int nPoints) {
        draw(new Polygon(xPoints, yPoints, nPoints));
    }

    @Override
    public void fillPolygon(int[] xPoints, int[] yPoints, int nPoints) {
        fill(new Polygon(xPoints, yPoints, nPoints));
    }

    @Override
    public boolean hit(Rectangle rect, Shape shape, boolean onStroke) {
        Shape s = transform.createTransformedShape(onStroke ? stroke.createStrokedShape(shape) : shape);
        return s.intersects(rect);
    }

    // ---- state

    @Override
    public Graphics create() {
        return new SvgGraphics2D(this);
    }

    @Override
    public void dispose() {}

    @Override
    public void setPaint(Paint paint) {
        if (paint != null) {
            this.paint = paint;
        }
    }

    @Override
    public Paint getPaint() {
        return paint;
    }

    @Override
    public void setColor(Color color) {
        setPaint(color);
    }

    @Override
    public Color getColor() {
        return paint instanceof Color c ? c : Color.BLACK;
    }

    @Override
    public void setBackground(Color color) {
        background = color;
    }

    @Override
    public Color getBackground() {
        return background;
    }

    @Override
    public void setStroke(Stroke stroke) {
        this.stroke = stroke;
    }

    @Override
    public Stroke getStroke() {
        return stroke;
    }

    @Override
    public void setFont(Font font) {
        if (font != null) {
            this.font = font;
        }
    }

    @Override
    public Font getFont() {
        return font;
    }

    @Override
    public FontMetrics getFontMetrics(Font f) {
        return measure().getFontMetrics(f);
    }

    @Override
    public FontRenderContext getFontRenderContext() {
        return measure().getFontRenderContext();
    }

    private Graphics2D measure() {
        canvas.measure.setRenderingHints(hints);
        canvas.measure.setTransform(transform);
        return canvas.measure;
    }

    @Override
    public void setComposite(Composite composite) {
        this.composite = composite;
    }

    @Override
    public Composite getComposite() {
        return composite;
    }

    @Override
    public void setRenderingHint(RenderingHints.Key key, Object value) {
        hints.put(key, value);
    }

    @Override
    public Object getRenderingHint(RenderingHints.Key key) {
        return hints.get(key);
    }

    @Override
    public void setRenderingHints(Map<?, ?> hints) {
        this.hints.clear();
        this.hints.putAll(hints);
    }

    @Override
    public void addRenderingHints(Map<?, ?> hints) {
        this.hints.putAll(hints);
    }

    @Override
    public RenderingHints getRenderingHints() {
        return (RenderingHints) hints.clone();
    }

    @Override
    public GraphicsConfiguration getDeviceConfiguration() {
        return canvas.measure.getDeviceConfiguration();
    }

    @Override
    public void setPaintMode() {}

    @Override
    public void setXORMode(Color c) {
        throw new UnsupportedOperationException("SvgGraphics2D draws in paint mode only, XOR mode was asked");
    }

    // ---- transform

    @Override
    public void translate(int x, int y) {
        transform.translate(x, y);
    }

    @Override
    public void translate(double tx, double ty) {
        transform.translate(tx, ty);
    }

    @Override
    public void rotate(double theta) {
        transform.rotate(theta);
    }

    @Override
    public void rotate(double theta, double x, double y) {
        transform.rotate(theta, x, y);
    }

    @Override
    public void scale(double sx, double sy) {
        transform.scale(sx, sy);
    }

    @Override
    public void shear(double shx, double shy) {
        transform.shear(shx, shy);
    }

    @Override
    public void transform(AffineTransform tx) {
        transform.concatenate(tx);
    }

    @Override
    public void setTransform(AffineTransform tx) {
        transform = new AffineTransform(tx);
    }

    @Override
    public AffineTransform getTransform() {
        return new AffineTransform(transform);
    }

    // ---- clip (kept in device coordinates, so a later transform does not move it)

    @Override
    public Shape getClip() {
        if (clip == null) {
            return null;
        }
        try {
            return transform.createInverse().createTransformedShape(clip);
        } catch (NoninvertibleTransformException e) {
            return null;
        }
    }

    @Override
    public void setClip(Shape shape) {
        clip = shape == null ? null : transform.createTransformedShape(shape);
    }

    @Override
    public void setClip(int x, int y, int width, int height) {
        setClip(new Rectangle(x, y, width, height));
    }

    @Override
    public void clip(Shape shape) {
        if (shape == null) {
            // Graphics2D's contract: a null clip(...) removes the clip.
            clip = null;
            return;
        }
        Shape device = transform.createTransformedShape(shape);
        if (clip == null) {
            clip = device;
        } else if (clip instanceof Rectangle2D a && device instanceof Rectangle2D b) {
            clip = a.createIntersection(b);
        } else {
            Area area = new Area(clip);
            area.intersect(new Area(device));
            clip = area;
        }
    }

    @Override
    public void clipRect(int x, int y, int width, int height) {
        clip(new Rectangle(x, y, width, height));
    }

    @Override
    public Rectangle getClipBounds() {
        Shape c = getClip();
        return c == null ? null : c.getBounds();
    }

    // ---- not supported: the charts draw no images

    @Override
    public void copyArea(int x, int y, int width, int height, int dx, int dy) {
        throw unsupported("copyArea");
    }

    @Override
    public boolean drawImage(Image img, AffineTransform xform, ImageObserver obs) {
        throw unsupported("drawImage");
    }

    @Override
    public void drawImage(BufferedImage img, BufferedImageOp op, int x, int y) {
        throw unsupported("drawImage");
    }

    @Override
    public void drawRenderedImage(RenderedImage img, AffineTransform xform) {
        throw unsupported("drawRenderedImage");
    }

    @Override
    public void drawRenderableImage(RenderableImage img, AffineTransform xform) {
        throw unsupported("drawRenderableImage");
    }

    @Override
    public boolean drawImage(Image img, int x, int y, ImageObserver observer) {
        throw unsupported("drawImage");
    }

    @Override
    public boolean drawImage(Image img, int x, int y, int width, int height, ImageObserver observer) {
        throw unsupported("drawImage");
    }

    @Override
    public boolean drawImage(Image img, int x, int y, Color bgcolor, ImageObserver observer) {
        throw unsupported("drawImage");
    }

    @Override
    public boolean drawImage(Image img, int x, int y, int width, int height, Color bgcolor, ImageObserver observer) {
        throw unsupported("drawImage");
    }

    @Override
    public boolean drawImage(Image img, int dx1, int dy1, int dx2, int dy2, int sx1, int sy1, int sx2, int sy2,
            ImageObserver observer) {
        throw unsupported("drawImage");
    }

    @Override
    public boolean drawImage(Image img, int dx1, int dy1, int dx2, int dy2, int sx1, int sy1, int sx2, int sy2,
            Color bgcolor, ImageObserver observer) {
        throw unsupported("drawImage");
    }

    private static UnsupportedOperationException unsupported(String what) {
        return new UnsupportedOperationException("SvgGraphics2D draws shapes and text only, " + what + " was asked");
    }

    // ---- writing

    /** Whether the transform keeps rectangles rectangles (no rotation or shear). */
    private boolean axisAligned() {
        return transform.getShearX() == 0 && transform.getShearY() == 0;
    }

    /** How much the transform scales a length (its determinant's square root). */
    private double scale() {
        return Math.sqrt(Math.abs(transform.getDeterminant()));
    }

    /** The shape's outline in device coordinates, through {@code at} (null when it is in them already). */
    private static String pathData(Shape shape, AffineTransform at) {
        StringBuilder d = new StringBuilder();
        double[] c = new double[6];
        for (PathIterator it = shape.getPathIterator(at); !it.isDone(); it.next()) {
            switch (it.currentSegment(c)) {
                case PathIterator.SEG_MOVETO -> d.append('M').append(num(c[0])).append(',').append(num(c[1]));
                case PathIterator.SEG_LINETO -> d.append('L').append(num(c[0])).append(',').append(num(c[1]));
                case PathIterator.SEG_QUADTO -> d.append('Q').append(num(c[0])).append(',').append(num(c[1]))
                        .append(' ').append(num(c[2])).append(',').append(num(c[3]));
                case PathIterator.SEG_CUBICTO -> d.append('C').append(num(c[0])).append(',').append(num(c[1]))
                        .append(' ').append(num(c[2])).append(',').append(num(c[3])).append(' ').append(num(c[4]))
                        .append(',').append(num(c[5]));
                case PathIterator.SEG_CLOSE -> d.append('Z');
                default -> throw new IllegalStateException("unknown path segment");
            }
        }
        return d.toString();
    }

    /** {@code fill="#rrggbb"} or {@code stroke=...}, with its opacity when the colour or composite has one. */
    private void colour(String attribute, Paint p) {
        Color c = p instanceof Color color ? color : p instanceof GradientPaint g ? g.getColor1() : Color.BLACK;
        StringBuilder out = canvas.body;
        out.append(' ').append(attribute).append("=\"#");
        String hex = Integer.toHexString(c.getRGB() & 0xFFFFFF);
        out.append("0".repeat(6 - hex.length())).append(hex).append('"');
        double alpha = c.getAlpha() / 255d;
        if (composite instanceof AlphaComposite a && a.getRule() == AlphaComposite.SRC_OVER) {
            alpha *= a.getAlpha();
        }
        if (alpha < 1) {
            out.append(' ').append(attribute).append("-opacity=\"").append(num(alpha)).append('"');
        }
    }

    private void clipReference() {
        if (clip == null) {
            return;
        }
        String d = pathData(clip, null);
        String id = canvas.clipIds.get(d);
        if (id == null) {
            id = canvas.idPrefix + "clip-" + canvas.clipIds.size();
            canvas.clipIds.put(d, id);
            canvas.defs.append("<clipPath id=\"").append(id).append("\"><path d=\"").append(d)
                    .append("\"/></clipPath>\n");
        }
        canvas.body.append(" clip-path=\"url(#").append(id).append(")\"");
    }

    /** The CSS generic family for Java's logical fonts, else the font's own family. */
    private static String family(Font f) {
        String family = f.getFamily(java.util.Locale.ROOT);
        String css = switch (family) {
            case Font.SANS_SERIF, Font.DIALOG, Font.DIALOG_INPUT -> "sans-serif";
            case Font.SERIF -> "serif";
            case Font.MONOSPACED -> "monospace";
            default -> family;
        };
        StringBuilder out = new StringBuilder();
        escape(css, out);
        return out.toString();
    }

    private static void escape(String text, StringBuilder out) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                default -> {
                    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
                        out.append(' '); // not allowed in XML 1.0
                    } else {
                        out.append(c);
                    }
                }
            }
        }
    }

    /** At most two decimals, trailing zeros dropped, never an exponent: short and the same on every run. */
    static String num(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            throw new IllegalArgumentException("an SVG coordinate must be finite, was " + v);
        }
        long hundredths = Math.round(v * 100);
        StringBuilder s = new StringBuilder(12);
        if (hundredths < 0) {
            s.append('-');
            hundredths = -hundredths;
        }
        s.append(hundredths / 100);
        long fraction = hundredths % 100;
        if (fraction != 0) {
            s.append('.').append(fraction / 10);
            if (fraction % 10 != 0) {
                s.append(fraction % 10);
            }
        }
        return s.toString();
    }
}
