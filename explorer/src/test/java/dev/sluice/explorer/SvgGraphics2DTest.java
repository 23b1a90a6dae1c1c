package dev.sluice.explorer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.AlphaComposite;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Line2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/** The SVG writer on its own: what each drawing call writes, in device coordinates. */
final class SvgGraphics2DTest {

    private static Document parse(String svg) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    }

    private static Element only(Document doc, String tag) {
        assertEquals(1, doc.getElementsByTagName(tag).getLength(), tag);
        return (Element) doc.getElementsByTagName(tag).item(0);
    }

    @Test
    void fill_translatedRectangle_isARectInDeviceCoordinates() throws Exception {
        SvgGraphics2D g = new SvgGraphics2D(100, 50, "t-");
        g.translate(10, 5);
        g.setColor(new Color(0x4DAF4A));
        g.fill(new Rectangle2D.Double(1.5, 2, 30, 10.125));
        Document doc = parse(g.document());
        assertEquals("100", doc.getDocumentElement().getAttribute("width"));
        assertEquals("0 0 100 50", doc.getDocumentElement().getAttribute("viewBox"));
        Element rect = only(doc, "rect");
        assertEquals("11.5", rect.getAttribute("x"));
        assertEquals("7", rect.getAttribute("y"));
        assertEquals("30", rect.getAttribute("width"));
        assertEquals("10.13", rect.getAttribute("height"));
        assertEquals("#4daf4a", rect.getAttribute("fill"));
        assertEquals("", rect.getAttribute("fill-opacity"), "opaque colours carry no opacity");
    }

    @Test
    void translucentColourAndComposite_multiplyIntoTheOpacity() throws Exception {
        SvgGraphics2D g = new SvgGraphics2D(10, 10, "t-");
        g.setColor(new Color(255, 255, 255, 204));
        g.setComposite(AlphaComposite.getInstance(AlphaComposite.SRC_OVER, 0.5f));
        g.fill(new Ellipse2D.Double(0, 0, 4, 4));
        Element path = only(parse(g.document()), "path");
        assertEquals("#ffffff", path.getAttribute("fill"));
        assertEquals("0.4", path.getAttribute("fill-opacity"));
        assertTrue(path.getAttribute("d").startsWith("M4,2C"), path.getAttribute("d"));
    }

    @Test
    void draw_dashedLine_keepsWidthAndDashes() throws Exception {
        SvgGraphics2D g = new SvgGraphics2D(10, 10, "t-");
        g.setPaint(new Color(0xB2182B));
        g.setStroke(new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
        g.draw(new Line2D.Double(0, 1, 9, 1));
        Element line = only(parse(g.document()), "line");
        assertEquals("9", line.getAttribute("x2"));
        assertEquals("#b2182b", line.getAttribute("stroke"));
        assertEquals("1.5", line.getAttribute("stroke-width"));
        assertEquals("6,4", line.getAttribute("stroke-dasharray"));
        assertEquals("10", line.getAttribute("stroke-miterlimit"));
    }

    @Test
    void drawString_rotated_isAMatrixAndEscaped() throws Exception {
        SvgGraphics2D g = new SvgGraphics2D(10, 10, "t-");
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 11));
        g.rotate(-Math.PI / 2, 5, 5);
        g.drawString("a < b & \"c\"", 1f, 2f);
        Element text = only(parse(g.document()), "text");
        assertEquals("a < b & \"c\"", text.getTextContent());
        assertEquals("matrix(0,-1,1,0,0,10)", text.getAttribute("transform"));
        assertEquals("sans-serif", text.getAttribute("font-family"));
        assertEquals("11", text.getAttribute("font-size"));
        assertEquals("bold", text.getAttribute("font-weight"));
    }

    /** A clip-path on a rotated element would be rotated with it: the rotated axis label lost its first words. */
    @Test
    void drawString_rotatedAndClipped_isClippedByAGroupInDeviceCoordinates() throws Exception {
        SvgGraphics2D g = new SvgGraphics2D(10, 10, "t-");
        g.clip(new Rectangle2D.Double(0, 0, 10, 10));
        g.rotate(-Math.PI / 2, 5, 5);
        g.drawString("label", 1f, 2f);
        Element text = only(parse(g.document()), "text");
        Element group = (Element) text.getParentNode();
        assertEquals("g", group.getTagName());
        assertEquals("url(#t-clip-0)", group.getAttribute("clip-path"));
        assertEquals("", text.getAttribute("clip-path"));
    }

    @Test
    void clip_isDefinedOnceAndSharedByACopy() throws Exception {
        SvgGraphics2D g = new SvgGraphics2D(20, 20, "chart-");
        g.translate(2, 2);
        g.clip(new Rectangle2D.Double(0, 0, 10, 10));
        g.fillRect(0, 0, 5, 5);
        Graphics2D copy = (Graphics2D) g.create();
        copy.translate(100, 100); // a later transform does not move the clip
        copy.fillRect(-100, -100, 3, 3);
        copy.dispose();
        g.setClip(null);
        g.fillRect(0, 0, 1, 1);
        Document doc = parse(g.document());
        Element clipPath = only(doc, "clipPath");
        assertEquals("chart-clip-0", clipPath.getAttribute("id"));
        assertEquals("M2,2L12,2L12,12L2,12L2,2Z", ((Element) clipPath.getElementsByTagName("path").item(0))
                .getAttribute("d"));
        var rects = doc.getElementsByTagName("rect");
        assertEquals(3, rects.getLength());
        assertEquals("url(#chart-clip-0)", ((Element) rects.item(0)).getAttribute("clip-path"));
        assertEquals("url(#chart-clip-0)", ((Element) rects.item(1)).getAttribute("clip-path"));
        assertEquals("2", ((Element) rects.item(1)).getAttribute("x"), "the copy drew where its transform says");
        assertEquals("", ((Element) rects.item(2)).getAttribute("clip-path"), "no clip after setClip(null)");
    }

    @Test
    void fontMetrics_areTheRastersOnes() {
        Font font = new Font(Font.SANS_SERIF, Font.PLAIN, 10);
        Graphics2D raster = new BufferedImage(1, 1, BufferedImage.TYPE_INT_ARGB).createGraphics();
        SvgGraphics2D g = new SvgGraphics2D(10, 10, "t-");
        assertEquals(raster.getFontMetrics(font).stringWidth("limit 20"), g.getFontMetrics(font).stringWidth("limit 20"),
                "the SVG is laid out as the PNG of the same chart");
    }

    @Test
    void num_twoDecimalsAtMostNoExponent() {
        assertEquals("0", SvgGraphics2D.num(-0.001));
        assertEquals("1200", SvgGraphics2D.num(1200));
        assertEquals("-3.5", SvgGraphics2D.num(-3.5));
        assertEquals("0.07", SvgGraphics2D.num(0.0749));
        assertEquals("12345678.9", SvgGraphics2D.num(12_345_678.9));
        assertThrows(IllegalArgumentException.class, () -> SvgGraphics2D.num(Double.NaN));
    }

    @Test
    void images_areRefusedByName() {
        SvgGraphics2D g = new SvgGraphics2D(10, 10, "t-");
        BufferedImage image = new BufferedImage(1, 1, BufferedImage.TYPE_INT_ARGB);
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                () -> g.drawImage(image, 0, 0, null));
        assertTrue(e.getMessage().contains("drawImage"), e.getMessage());
    }
}
