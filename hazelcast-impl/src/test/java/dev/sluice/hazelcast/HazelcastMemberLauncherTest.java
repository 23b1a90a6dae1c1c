package dev.sluice.hazelcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.config.Config;
import com.hazelcast.config.InMemoryFormat;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The configs {@link SluiceMember} starts a member with (no member is started here). */
final class HazelcastMemberLauncherTest {

    @Test
    void config_fromYamlFile_addsSluiceOnTop(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("hazelcast.yaml");
        Files.writeString(yaml, "hazelcast:\n  cluster-name: from-file\n  map:\n    sluice:\n      backup-count: 2\n"
                + "    sluice-async-backup:\n      backup-count: 1\n      async-backup-count: 0\n");
        Config config = SluiceMember.config(new String[] {yaml.toString()});
        assertEquals("from-file", config.getClusterName());
        assertTrue(config.getSerializationConfig().getDataSerializableFactories()
                .containsKey(SluiceSerializerFactory.factoryId()));
        assertEquals(1, config.getMapConfig("sluice").getBackupCount(), "Sluice's map settings win");
        assertEquals(InMemoryFormat.OBJECT, config.getMapConfig("sluice-ephemeral").getInMemoryFormat());
        assertEquals(1, config.getMapConfig("sluice-async-backup").getAsyncBackupCount());
        assertEquals(0, config.getMapConfig("sluice-async-backup").getBackupCount());
    }

    @Test
    void config_fromXmlFile_isLoaded(@TempDir Path dir) throws Exception {
        Path xml = dir.resolve("hazelcast.xml");
        Files.writeString(xml, "<hazelcast xmlns=\"http://www.hazelcast.com/schema/config\">"
                + "<cluster-name>xml-cluster</cluster-name></hazelcast>");
        assertEquals("xml-cluster", SluiceMember.config(new String[] {xml.toString()}).getClusterName());
    }

    @Test
    void config_unknownExtension_throwsNamingThePath() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SluiceMember.config(new String[] {"member.json"}));
        assertTrue(e.getMessage().contains("member.json"), e.getMessage());
    }

    @Test
    void loopbackConfig_joinsOnlyTheGivenMembersOverTcp() {
        Config config = SluiceMember.loopbackConfig("c", "127.0.0.1", 5801, List.of());
        assertEquals(5801, config.getNetworkConfig().getPort());
        assertEquals(List.of("127.0.0.1:5801"), config.getNetworkConfig().getJoin().getTcpIpConfig().getMembers());
        assertTrue(!config.getNetworkConfig().getJoin().getMulticastConfig().isEnabled());
    }
}
