package io.fleetjobs.jobservice.webhooks;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import org.apache.hc.client5.http.DnsResolver;

/**
 * The webhooks' client resolves a receiver's host here, for the connection itself, and is refused what
 * {@link Destinations} refuses: the addresses checked are the addresses connected to. A check made apart from the
 * connection could be answered with a public address and the connection, moments later, with loopback or a cloud's
 * metadata address (DNS rebinding).
 */
final class CheckedResolver implements DnsResolver {
    /** A host whose addresses the tenant may not reach; the message says why. */
    static final class Refused extends UnknownHostException {
        Refused(String host, String problem) {
            super(host + " " + problem);
        }
    }

    private final HostResolver resolver;
    private final boolean privateAllowed;

    CheckedResolver(HostResolver resolver, boolean privateAllowed) {
        this.resolver = resolver;
        this.privateAllowed = privateAllowed;
    }

    @Override
    public InetAddress[] resolve(String host) throws UnknownHostException {
        var addresses = resolver.resolve(host);
        Optional<String> problem = Destinations.addressProblem(addresses, privateAllowed);
        if (problem.isPresent()) {
            throw new Refused(host, problem.get());
        }
        return addresses.toArray(InetAddress[]::new);
    }

    @Override
    public String resolveCanonicalHostname(String host) {
        return host; // asked for by authentication schemes that webhooks do not use
    }
}
