/**
 * Planck's ONOS application. The rule of its packages: a class directly in
 * {@code org.planck.app.<area>} is an ONOS component (it may use ONOS services, stores and
 * listeners); a class in {@code org.planck.app.<area>.algo} is plain Java that takes a graph and
 * estimates and returns decisions, uses only ONOS model types, and is reused as-is by the lab and
 * the benchmarks.
 */
package org.planck.app;
