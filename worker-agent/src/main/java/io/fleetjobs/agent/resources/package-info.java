/**
 * What the machine has: CPU and memory as the JVM sees them, NVIDIA GPUs as {@code nvidia-smi} lists
 * them. Plain Java.
 */
package io.fleetjobs.agent.resources;
