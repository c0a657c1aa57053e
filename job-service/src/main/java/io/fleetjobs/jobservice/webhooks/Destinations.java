package io.fleetjobs.jobservice.webhooks;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Which URLs a webhook may be sent to. A tenant's webhook is a request the control plane makes on its behalf, from
 * inside the operator's network: to a loopback, private, link-local (cloud metadata at 169.254.169.254 among them),
 * carrier-grade NAT, unique-local or multicast address it would reach what the tenant cannot (so would an IPv6 address
 * that carries such an IPv4 one to a translator or a tunnel: NAT64, 6to4), so those are refused
 * unless an admin allows them for the tenant. Checked when a webhook is registered and again before each delivery
 * (a name may resolve elsewhere later). Pure: the caller resolves the host.
 */
public final class Destinations {
    /** The longest URL accepted. */
    public static final int MAX_URL_LENGTH = 2048;

    private Destinations() {
    }

    /** What is wrong with the URL's form (absolute http or https, a host, no user info), or empty when nothing. */
    public static Optional<String> formProblem(String url) {
        if (url == null || url.isBlank()) {
            return Optional.of("is required");
        }
        if (url.length() > MAX_URL_LENGTH) {
            return Optional.of("must be at most " + MAX_URL_LENGTH + " characters");
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            return Optional.of("is not a URL: " + e.getReason());
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            return Optional.of("must be an http or https URL");
        }
        if (uri.getHost() == null || uri.getHost().isBlank()) {
            return Optional.of("must name a host");
        }
        if (uri.getRawUserInfo() != null) {
            return Optional.of("must not carry a user or password");
        }
        return Optional.empty();
    }

    /**
     * What is wrong with sending to these addresses of the URL's host, or empty when nothing: any one of them in a
     * range the tenant may not reach is enough to refuse (a client may connect to any of them).
     */
    public static Optional<String> addressProblem(List<InetAddress> addresses, boolean privateAllowed) {
        if (addresses.isEmpty()) {
            return Optional.of("its host has no address");
        }
        if (privateAllowed) {
            return Optional.empty();
        }
        for (InetAddress address : addresses) {
            if (isInternal(address)) {
                return Optional.of("resolves to " + address.getHostAddress() + ", a loopback, private, link-local or"
                        + " otherwise internal address; an admin may allow such destinations for the tenant"
                        + " (allowPrivateWebhooks)");
            }
        }
        return Optional.empty();
    }

    /** Whether an address is one the control plane's network reaches but the internet does not. */
    public static boolean isInternal(InetAddress a) {
        if (a.isAnyLocalAddress() || a.isLoopbackAddress() || a.isLinkLocalAddress() || a.isSiteLocalAddress()
                || a.isMulticastAddress()) {
            return true;
        }
        byte[] b = a.getAddress();
        if (a instanceof Inet4Address) {
            int first = b[0] & 0xff;
            int second = b[1] & 0xff;
            return first == 0 // "this network"
                    || (first == 100 && second >= 64 && second <= 127) // carrier-grade NAT, 100.64.0.0/10
                    || (first == 198 && (second == 18 || second == 19)) // benchmarking, 198.18.0.0/15
                    || first >= 240; // reserved and broadcast
        }
        if (a instanceof Inet6Address six) {
            if ((b[0] & 0xfe) == 0xfc) {
                return true; // unique local, fc00::/7
            }
            if (six.isIPv4CompatibleAddress() || isMappedV4(b) || startsWith(b, NAT64)) {
                return isInternalV4(b, 12); // the IPv4 address in its last four bytes
            }
            if (startsWith(b, SIX_TO_FOUR)) {
                return isInternalV4(b, 2); // 2002:AABB:CCDD::/48 tunnels to AA.BB.CC.DD
            }
            // local-use NAT64 (64:ff9b:1::/48), Teredo (2001::/32) and discard-only (100::/64) go where the network
            // says, not where the address does
            return startsWith(b, LOCAL_NAT64) || startsWith(b, TEREDO) || startsWith(b, DISCARD);
        }
        return false;
    }

    private static final byte[] NAT64 = {0, 0x64, (byte) 0xff, (byte) 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
    private static final byte[] LOCAL_NAT64 = {0, 0x64, (byte) 0xff, (byte) 0x9b, 0, 1};
    private static final byte[] SIX_TO_FOUR = {0x20, 0x02};
    private static final byte[] TEREDO = {0x20, 0x01, 0, 0};
    private static final byte[] DISCARD = {0x01, 0, 0, 0, 0, 0, 0, 0};

    private static boolean startsWith(byte[] address, byte[] prefix) {
        return Arrays.equals(address, 0, prefix.length, prefix, 0, prefix.length);
    }

    private static boolean isInternalV4(byte[] address, int from) {
        try {
            return isInternal(InetAddress.getByAddress(Arrays.copyOfRange(address, from, from + 4)));
        } catch (UnknownHostException e) {
            return true;
        }
    }

    private static boolean isMappedV4(byte[] b) {
        for (int i = 0; i < 10; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff;
    }
}
