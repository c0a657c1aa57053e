package io.fleetjobs.gateway;

import io.fleetjobs.support.BufferedBody;
import io.fleetjobs.support.SignedIdentity;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The request as the services get it: no {@code Authorization} (the API key stays at the gateway), no
 * identity headers the client sent, and, for an authenticated call, the identity the gateway signed.
 * A body the gateway had to read to measure (chunked) is replayed from memory with its length.
 */
final class ForwardedRequest extends HttpServletRequestWrapper {
    private static final Set<String> HIDDEN = Set.of("authorization", SignedIdentity.HEADER.toLowerCase(),
            SignedIdentity.SIGNATURE_HEADER.toLowerCase());

    private final Map<String, String> added = new LinkedHashMap<>();
    private final byte[] body;

    /** {@code signed} null: strip only; {@code body} null: the body streams through as it came. */
    ForwardedRequest(HttpServletRequest request, SignedIdentity.Signed signed, byte[] body) {
        super(request);
        if (signed != null) {
            added.put(SignedIdentity.HEADER, signed.value());
            added.put(SignedIdentity.SIGNATURE_HEADER, signed.signature());
        }
        this.body = body;
        if (body != null) {
            added.put("Content-Length", Integer.toString(body.length));
        }
    }

    private boolean hidden(String name) {
        String n = name.toLowerCase();
        return HIDDEN.contains(n) || (body != null && (n.equals("transfer-encoding") || n.equals("content-length")));
    }

    private String addedValue(String name) {
        return added.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name)).map(Map.Entry::getValue)
                .findFirst().orElse(null);
    }

    @Override
    public String getHeader(String name) {
        String value = addedValue(name);
        if (value != null) {
            return value;
        }
        return hidden(name) ? null : super.getHeader(name);
    }

    @Override
    public Enumeration<String> getHeaders(String name) {
        String value = addedValue(name);
        if (value != null) {
            return Collections.enumeration(List.of(value));
        }
        return hidden(name) ? Collections.emptyEnumeration() : super.getHeaders(name);
    }

    @Override
    public Enumeration<String> getHeaderNames() {
        List<String> names = new ArrayList<>();
        for (Enumeration<String> e = super.getHeaderNames(); e.hasMoreElements(); ) {
            String n = e.nextElement();
            if (!hidden(n) && addedValue(n) == null) {
                names.add(n);
            }
        }
        names.addAll(added.keySet());
        return Collections.enumeration(names);
    }

    @Override
    public int getContentLength() {
        return body != null ? body.length : super.getContentLength();
    }

    @Override
    public long getContentLengthLong() {
        return body != null ? body.length : super.getContentLengthLong();
    }

    @Override
    public ServletInputStream getInputStream() throws IOException {
        if (body == null) {
            return super.getInputStream();
        }
        return BufferedBody.stream(body);
    }
}
