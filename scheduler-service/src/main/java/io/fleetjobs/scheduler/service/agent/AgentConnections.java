package io.fleetjobs.scheduler.service.agent;

import org.apache.catalina.connector.Connector;
import org.springframework.boot.tomcat.TomcatConnectorCustomizer;

/**
 * The scheduler's HTTP connector sized for a fleet: every agent keeps its connection open between heartbeats, so a
 * 10,000-machine fleet is 10,000 open connections, and what each costs while idle is what the heap pays for the fleet.
 * Tomcat gives every connection a read and a write buffer of 8 KiB by default (160 MiB for 10,000 connections); a
 * heartbeat and its answer are a few hundred bytes, and anything longer is read and written in pieces, so each buffer
 * here is {@link #BUFFER_BYTES}. How many connections are accepted at all is {@code server.tomcat.max-connections}
 * (application.yml: at least the fleet, or agents past it time out connecting).
 */
public final class AgentConnections implements TomcatConnectorCustomizer {
    public static final int BUFFER_BYTES = 2048;

    @Override
    public void customize(Connector connector) {
        connector.setProperty("socket.appReadBufSize", Integer.toString(BUFFER_BYTES));
        connector.setProperty("socket.appWriteBufSize", Integer.toString(BUFFER_BYTES));
    }
}
