package io.fleetjobs.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * How a gang's replicas find each other: every replica listens on one port, chosen from the job and its attempt
 * (so a retry does not meet the last attempt's stragglers on the same port), on its own machine (a gang has one
 * replica per machine); the peers are each machine's address with that port, by rank, and replica 0's is the
 * rendezvous ({@code MASTER_ADDR}, {@code MASTER_PORT}, as PyTorch's launchers expect). Replicas whose machines share
 * an address (several agents on one host, as {@code bin/run-local} runs them) listen on the ports after it, one each,
 * so that every peer entry is a place only its replica listens on.
 */
public final class GangRendezvous {
    /** The first port of the range gangs listen on: 29500 is PyTorch's default. */
    public static final int FIRST_PORT = 29500;
    /** How many ports the range holds. */
    public static final int PORTS = 500;

    private GangRendezvous() {
    }

    /** The port every replica of this attempt listens on. */
    public static int port(UUID jobId, int attempt) {
        return FIRST_PORT + Math.floorMod(jobId.hashCode() * 31 + attempt, PORTS);
    }

    /**
     * Each replica's {@code host:port}, by rank, from the addresses of their machines by rank: {@code port} for each,
     * but that a replica whose address an earlier rank has already takes the next port of the range that none of them
     * has.
     */
    public static List<String> peers(List<String> addresses, int port) {
        Map<String, Integer> sharing = new HashMap<>();
        List<String> peers = new ArrayList<>(addresses.size());
        for (String address : addresses) {
            int before = sharing.merge(address, 1, Integer::sum) - 1;
            peers.add(address + ":" + (FIRST_PORT + Math.floorMod(port - FIRST_PORT + before, PORTS)));
        }
        return List.copyOf(peers);
    }

    /** The variables a replica's process sees: its rank, the world's size, the peers and the rendezvous. */
    public static Map<String, String> environment(int rank, int worldSize, List<String> peers) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("FLEETJOBS_RANK", Integer.toString(rank));
        env.put("FLEETJOBS_WORLD_SIZE", Integer.toString(worldSize));
        env.put("FLEETJOBS_PEERS", String.join(",", peers));
        env.put("RANK", Integer.toString(rank));
        env.put("WORLD_SIZE", Integer.toString(worldSize));
        if (!peers.isEmpty()) {
            String master = peers.getFirst();
            int colon = master.lastIndexOf(':');
            env.put("MASTER_ADDR", colon < 0 ? master : master.substring(0, colon));
            if (colon >= 0) {
                env.put("MASTER_PORT", master.substring(colon + 1));
            }
        }
        return env;
    }
}
