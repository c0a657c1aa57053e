package io.fleetjobs.support;

import java.nio.charset.StandardCharsets;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/** A Kafka record's headers as text by name ({@code JobEvent.Headers} reads an event's head from them). */
public final class RecordHeaders {
    private RecordHeaders() {
    }

    /** The last value of each header of {@code record}, as UTF-8; null for one it does not have. */
    public static Function<String, String> of(ConsumerRecord<?, ?> record) {
        return name -> {
            Header header = record.headers().lastHeader(name);
            return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
        };
    }
}
