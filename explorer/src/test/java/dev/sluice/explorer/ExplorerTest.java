package dev.sluice.explorer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.GraphicsEnvironment;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import javax.xml.parsers.DocumentBuilderFactory;
import org.jfree.data.xy.XYSeries;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;

/** The command end to end: files written headless, deterministic output, exit statuses, the committed figures. */
final class ExplorerTest {
    private static final String[] SMALL = {"--limit", "20", "--window", "10s", "--segments", "5", "--duration", "2m"};

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return Explorer.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private static String[] with(String[] base, String... more) {
        String[] all = new String[base.length + more.length];
        System.arraycopy(base, 0, all, 0, base.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return all;
    }

    @Test
    void run_writesAPngAndAnSvgPerTraceAndTheTables_headless(@TempDir Path dir) throws Exception {
        assertTrue(GraphicsEnvironment.isHeadless(), "the test JVM is headless, as the command's is");
        assertEquals(0, run(with(SMALL, "--out", dir.toString())), err.toString(StandardCharsets.UTF_8));

        int height = Charts.height(Algorithm.values().size());
        for (TraceKind kind : TraceKind.values()) {
            BufferedImage png = ImageIO.read(dir.resolve(kind.id() + ".png").toFile());
            assertEquals(Charts.WIDTH, png.getWidth(), kind.id());
            assertEquals(height, png.getHeight(), kind.id());
            assertTrue(distinctColours(png) > 8, kind.id() + ": the image has content, not just a background");

            Path svgFile = dir.resolve(kind.id() + ".svg");
            String svg = Files.readString(svgFile);
            Element root = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(svgFile.toFile())
                    .getDocumentElement();
            assertEquals("svg", root.getTagName(), kind.id() + ": well-formed SVG");
            assertEquals(String.valueOf(Charts.WIDTH), root.getAttribute("width"), kind.id());
            assertEquals(String.valueOf(height), root.getAttribute("height"), kind.id());
            assertTrue(svg.contains("sliding counter") && svg.contains("limit 20"), kind.id() + ": lanes and labels");
            for (Algorithm algorithm : Algorithm.values()) {
                String hex = String.format("#%06x", Charts.color(algorithm).getRGB() & 0xFFFFFF);
                assertTrue(svg.contains("<rect ") && svg.contains("fill=\"" + hex + "\""),
                        kind.id() + ": bars of " + algorithm);
                assertTrue(svg.contains("stroke=\"" + hex + "\""), kind.id() + ": the curve of " + algorithm);
            }
            assertTrue(svg.contains("transform=\"matrix(0,-1,1,0,"), kind.id() + ": the curve's axis label, rotated, as text");
            assertTrue(svg.contains("stroke-dasharray=\"6,4\""), kind.id() + ": the dashed limit line");
        }
        String tables = Files.readString(dir.resolve("tables.md"));
        for (TraceKind kind : TraceKind.values()) {
            assertTrue(tables.contains("## " + kind.id() + "\n"), kind.id());
            assertTrue(tables.contains("![" + kind.id() + "](" + kind.id() + ".png)"), kind.id());
        }
        assertTrue(tables.contains("seed 42"), "the seed that reproduces the figures");
        assertTrue(tables.contains(Tables.COMMAND + " -Dexplorer.args=\"--limit 20 --window 10s --segments 5"
                + " --duration 2m --trace all --seed 42\""), "the command that reproduces them");
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("wrote 13 files"));
    }

    @Test
    void run_sameSettingsTwice_sameTablesAndSvg(@TempDir Path dir) throws IOException {
        Path a = dir.resolve("a");
        Path b = dir.resolve("b");
        String[] args = with(SMALL, "--trace", "bursty,clients", "--seed", "5");
        assertEquals(0, run(with(args, "--out", a.toString())));
        assertEquals(0, run(with(args, "--out", b.toString())));
        for (String file : List.of("tables.md", "bursty.svg", "clients.svg")) {
            assertArrayEquals(Files.readAllBytes(a.resolve(file)), Files.readAllBytes(b.resolve(file)), file);
        }
        assertTrue(Files.notExists(a.resolve("boundary.png")), "only the traces asked for");
    }

    @Test
    void run_badSetting_status2_namesTheSettingAndPrintsUsage(@TempDir Path dir) {
        assertEquals(2, run("--segments", "7", "--out", dir.toString()));
        String message = err.toString(StandardCharsets.UTF_8);
        assertTrue(message.startsWith("explorer: --segments must be between 1 and 1000"), message);
        assertTrue(message.contains("usage: mvn"), message);
    }

    @Test
    void run_outIsAFile_status1(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("taken"), "x");
        assertEquals(1, run(with(SMALL, "--trace", "boundary", "--out", file.toString())));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--out names a file, not a directory"));
        assertEquals("x", Files.readString(file), "nothing overwritten");
    }

    @Test
    void run_help_status0() {
        assertEquals(0, run("--help"));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("--duration D"));
    }

    /** The plotted curve's top is the table's maximum: the envelope loses no peak. */
    @Test
    void curve_peakIsTheMaximumInAWindow() {
        Settings settings = Settings.parse(SMALL);
        for (List<Run> runs : Explorer.explore(settings)) {
            for (Run run : runs) {
                XYSeries curve = Charts.curve(settings, run, Charts.AxisUnit.of(settings.durationMillis()));
                assertEquals(run.maxInWindow(), curve.getMaxY(), run.algorithm() + " on " + run.trace().kind());
            }
        }
    }

    /**
     * The figures committed under docs/explorer are what the README's command writes today; when an algorithm
     * changes, regenerate them with {@code mvn -B -q -pl explorer -am compile exec:exec@explore}.
     */
    @Test
    void committedTables_areWhatTheDefaultRunWrites() throws IOException {
        Path committed = Path.of("..", "docs", "explorer", "tables.md");
        String expected = Files.readString(committed);
        String actual = Tables.document(Settings.DEFAULTS, Explorer.explore(Settings.DEFAULTS));
        assertEquals(expected, actual, committed.toAbsolutePath().normalize() + " is stale; regenerate it with "
                + Tables.COMMAND);
    }

    private static int distinctColours(BufferedImage image) {
        java.util.Set<Integer> colours = new java.util.HashSet<>();
        for (int y = 0; y < image.getHeight(); y += 3) {
            for (int x = 0; x < image.getWidth(); x += 3) {
                colours.add(image.getRGB(x, y));
            }
        }
        return colours.size();
    }
}
