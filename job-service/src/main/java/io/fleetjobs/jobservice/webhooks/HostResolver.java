package io.fleetjobs.jobservice.webhooks;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/** A host's addresses, as the system's resolver gives them; a test may answer as a DNS that lies would. */
@FunctionalInterface
public interface HostResolver {
    HostResolver SYSTEM = host -> List.of(InetAddress.getAllByName(host));

    List<InetAddress> resolve(String host) throws UnknownHostException;
}
