package dev.sluice.limiter;

import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.zone.ZoneRulesProvider;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A time zone as one {@code long}, so that a spec that names one fits the wire's words. An offset is its total
 * seconds ({@code -64800} to {@code 64800}). A region id ({@code Europe/Paris}) does not fit in a long, so it travels
 * as a code: bit 62 set, below it a 62-bit FNV-1a hash of the id. The node that decides resolves the code against
 * its own tz database ({@link ZoneId#getAvailableZoneIds()}), where it is found by its hash; two ids of one hash
 * are both refused rather than one mistaken for the other, so a code never resolves to the wrong zone. A node
 * whose tz database lacks the zone (an older JDK, a zone added since) refuses the step with an
 * {@link IllegalStateException}: it cannot know the zone's rules, and guessing them would move the boundaries.
 *
 * <p>An id with a fixed offset outside the tz database ({@code UTC+01:00}, {@code GMT+2}) travels as its offset.
 */
final class TimeZones {
    /** The tag of a region's code; an offset's code is far below it. */
    static final long REGION = 1L << 62;
    private static final int MAX_OFFSET_SECONDS = 18 * 3600;
    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;
    /** What a valid code is, for messages. */
    static final String EXPECTED = "a time zone: a region id of the tz database such as Europe/Paris, or an offset"
            + " such as +02:00 or UTC";

    private static final Map<Long, ZoneId> RESOLVED = new ConcurrentHashMap<>();

    private TimeZones() {}

    /** The region ids of this node's tz database by code; a code two ids share maps to {@code null}. */
    private static final class Database {
        static final Map<Long, String> IDS = index();

        private static Map<Long, String> index() {
            Map<Long, String> ids = new HashMap<>();
            for (String id : ZoneId.getAvailableZoneIds()) {
                long code = regionCode(id);
                ids.put(code, ids.containsKey(code) ? null : id);
            }
            return ids;
        }
    }

    /**
     * The code of {@code zone}.
     *
     * @throws IllegalParameterException naming {@code parameter} if the zone's id shares its code with another
     *     region of this JVM's tz database
     */
    static long code(String parameter, ZoneId zone) {
        if (zone instanceof ZoneOffset offset) {
            return offset.getTotalSeconds();
        }
        String id = zone.getId();
        long code = regionCode(id);
        if (Database.IDS.containsKey(code)) {
            if (!id.equals(Database.IDS.get(code))) {
                throw new IllegalParameterException(parameter, parameter + " " + id + " shares its code with another"
                        + " zone of the tz database; name it by another id (a link such as Etc/..., or its offset)");
            }
            return code;
        }
        if (zone.normalized() instanceof ZoneOffset offset) {
            return offset.getTotalSeconds(); // UTC+01:00, GMT+2: fixed offsets under a prefix
        }
        throw new IllegalParameterException(parameter, parameter + " " + id + " is not in this JVM's tz database"
                + " (ZoneId.getAvailableZoneIds()); expected " + EXPECTED);
    }

    /**
     * {@code code} if it is the form of a zone's code.
     *
     * @throws IllegalParameterException naming {@code parameter} and the value
     */
    static long checkCode(String parameter, long code) {
        if ((code < -MAX_OFFSET_SECONDS || code > MAX_OFFSET_SECONDS) && code < REGION) {
            throw new IllegalParameterException(parameter, parameter + " must be " + EXPECTED + " (as a code: an offset"
                    + " in seconds from -" + MAX_OFFSET_SECONDS + " to " + MAX_OFFSET_SECONDS + ", or a region's hash"
                    + " with bit 62 set), was " + code);
        }
        return code;
    }

    /**
     * The zone of {@code code}, from this node's tz database.
     *
     * @throws IllegalParameterException if it is not the form of a code
     * @throws IllegalStateException if this node's tz database has no region of that code, or two
     */
    static ZoneId zone(String parameter, long code) {
        checkCode(parameter, code);
        if (code < REGION) {
            return ZoneOffset.ofTotalSeconds((int) code);
        }
        ZoneId known = RESOLVED.get(code);
        if (known != null) {
            return known;
        }
        String id = Database.IDS.get(code);
        if (id == null) {
            String why = Database.IDS.containsKey(code) ? "two of its zones share that code"
                    : "it has no zone of that code, which the caller's has";
            throw new IllegalStateException("cannot decide for a time zone of code 0x" + Long.toHexString(code)
                    + ": this node's tz database (version " + version() + ") cannot name it, as " + why + "; give"
                    + " every node a JDK with the same tz database (or run tzupdater), or use an offset zone");
        }
        ZoneId zone;
        try {
            zone = ZoneId.of(id);
        } catch (DateTimeException e) {
            throw new IllegalStateException("the time zone " + id + " of this node's tz database cannot be loaded: "
                    + e.getMessage(), e);
        }
        RESOLVED.put(code, zone);
        return zone;
    }

    /** A value a zone setting or parameter was given: a {@link ZoneId}, or its id as text. */
    static ZoneId parse(String parameter, Object value) {
        if (value instanceof ZoneId zone) {
            return zone;
        }
        if (value instanceof String text) {
            try {
                return ZoneId.of(text.strip());
            } catch (DateTimeException e) {
                throw new IllegalParameterException(parameter, parameter + " must be " + EXPECTED + ", was '" + text
                        + "'");
            }
        }
        throw new IllegalParameterException(parameter, parameter + " must be " + EXPECTED + " (a java.time.ZoneId or"
                + " its id), was " + value + " (" + value.getClass().getSimpleName() + ")");
    }

    private static long regionCode(String id) {
        long hash = FNV_OFFSET;
        for (byte b : id.getBytes(StandardCharsets.UTF_8)) {
            hash ^= b & 0xFF;
            hash *= FNV_PRIME;
        }
        return REGION | (hash & (REGION - 1));
    }

    private static String version() {
        try {
            return ZoneRulesProvider.getVersions("Etc/UTC").lastKey();
        } catch (RuntimeException e) {
            return "unknown";
        }
    }
}
