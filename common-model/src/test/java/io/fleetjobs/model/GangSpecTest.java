package io.fleetjobs.model;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validation;
import jakarta.validation.Validator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class GangSpecTest {
    private static final Validator VALIDATOR = Validation.buildDefaultValidatorFactory().getValidator();

    private static JobSpec gang(Integer replicas, String scope) {
        return new JobSpec("g", null, null, Resources.of(1, 64), new Placement(null, Map.of(), null, null, scope),
                Execution.of("true"), null, null, null, replicas);
    }

    private static List<String> fieldsAtFault(Object o) {
        return VALIDATOR.validate(o).stream().map(ConstraintViolation::getPropertyPath).map(Object::toString).sorted()
                .toList();
    }

    @Test
    void replicasDefaultToOneAndAreHeldBetweenOneAndSixtyFour() {
        assertThat(gang(null, null).replicas()).isEqualTo(1);
        assertThat(gang(null, null).replicas() > 1).isFalse();
        assertThat(fieldsAtFault(gang(64, null))).isEmpty();
        assertThat(gang(3, null).replicas() > 1).isTrue();
        assertThat(fieldsAtFault(gang(0, null))).containsExactly("replicas");
        assertThat(fieldsAtFault(gang(65, null))).containsExactly("replicas");
    }

    @Test
    void aGangScopeIsARegionOrALabel() {
        assertThat(fieldsAtFault(gang(2, "region"))).isEmpty();
        assertThat(fieldsAtFault(gang(2, "label:rack"))).isEmpty();
        assertThat(fieldsAtFault(gang(2, "rack"))).containsExactly("placement.gangScope");
        assertThat(fieldsAtFault(gang(2, "label:"))).containsExactly("placement.gangScope");
    }

    @Test
    void everyReplicaSeesItsRankThePeersAndReplicaZeroAsTheRendezvous() {
        UUID job = UUID.randomUUID();
        int port = GangRendezvous.port(job, 1);
        assertThat(port).isBetween(GangRendezvous.FIRST_PORT, GangRendezvous.FIRST_PORT + GangRendezvous.PORTS - 1);
        assertThat(GangRendezvous.port(job, 1)).isEqualTo(port);
        List<String> peers = GangRendezvous.peers(List.of("m-a", "m-b", "10.0.0.3"), port);
        assertThat(peers).containsExactly("m-a:" + port, "m-b:" + port, "10.0.0.3:" + port);
        Map<String, String> env = GangRendezvous.environment(2, 3, peers);
        assertThat(env).containsEntry("FLEETJOBS_RANK", "2").containsEntry("FLEETJOBS_WORLD_SIZE", "3")
                .containsEntry("FLEETJOBS_PEERS", String.join(",", peers)).containsEntry("MASTER_ADDR", "m-a")
                .containsEntry("MASTER_PORT", Integer.toString(port));
    }

    @Test
    void replicasOnOneHostEachListenOnAPortOfTheirOwn() {
        int last = GangRendezvous.FIRST_PORT + GangRendezvous.PORTS - 1;
        assertThat(GangRendezvous.peers(List.of("h", "h", "other", "h"), last))
                .containsExactly("h:" + last, "h:" + GangRendezvous.FIRST_PORT, "other:" + last,
                        "h:" + (GangRendezvous.FIRST_PORT + 1));
        Map<String, String> env = GangRendezvous.environment(1, 4, GangRendezvous.peers(List.of("h", "h", "h", "h"), last));
        assertThat(env).containsEntry("MASTER_ADDR", "h").containsEntry("MASTER_PORT", Integer.toString(last));
    }
}
