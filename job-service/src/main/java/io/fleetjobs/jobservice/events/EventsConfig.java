package io.fleetjobs.jobservice.events;

import io.fleetjobs.store.HistoryFeed;
import java.time.InstantSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;

/** The live event feed of this instance, and the loop that polls it. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(EventsProperties.class)
class EventsConfig {
    private static final Logger log = LoggerFactory.getLogger(EventsConfig.class);

    @Bean
    HistoryFeed historyFeed(JdbcClient jdbc) {
        return new HistoryFeed(jdbc);
    }

    @Bean
    EventFeed eventFeed(HistoryFeed history, InstantSource clock, EventsProperties properties) {
        return new EventFeed(history, clock, properties.grace(), properties.maxStreamsPerTenant(), properties.queueCapacity());
    }

    /** Polls on a virtual thread of its own; a full batch is followed at once by the next, a failure by a pause. */
    @Bean
    SmartLifecycle eventFeedLoop(EventFeed feed, EventsProperties properties) {
        return new SmartLifecycle() {
            private volatile Thread thread;

            @Override
            public void start() {
                thread = Thread.ofVirtual().name("event-feed").start(() -> {
                    while (!Thread.currentThread().isInterrupted()) {
                        try {
                            if (feed.poll() < EventFeed.BATCH) {
                                Thread.sleep(properties.pollInterval());
                            }
                        } catch (InterruptedException e) {
                            return;
                        } catch (RuntimeException e) {
                            log.warn("event feed cannot read job_history: {}", e.getMessage());
                            try {
                                Thread.sleep(properties.pollInterval().multipliedBy(4));
                            } catch (InterruptedException stop) {
                                return;
                            }
                        }
                    }
                });
            }

            @Override
            public void stop() {
                Thread t = thread;
                if (t != null) {
                    t.interrupt();
                    thread = null;
                }
                feed.closeAll();
            }

            @Override
            public boolean isRunning() {
                return thread != null;
            }
        };
    }
}
