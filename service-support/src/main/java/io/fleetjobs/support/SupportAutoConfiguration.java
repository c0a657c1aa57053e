package io.fleetjobs.support;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.core.KafkaAdmin;

/** Health of Kafka for every service that talks to it. */
@AutoConfiguration(afterName = "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration")
@ConditionalOnClass(name = "org.springframework.kafka.core.KafkaAdmin")
public class SupportAutoConfiguration {
    @Bean("kafka")
    @ConditionalOnBean(KafkaAdmin.class)
    @ConditionalOnMissingBean(KafkaHealth.class)
    KafkaHealth kafkaHealth(KafkaAdmin admin) {
        return new KafkaHealth(admin);
    }
}
