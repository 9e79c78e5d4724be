/**
 * Network calculus for Loko-style admission control (plain Java, no ONOS services): exact
 * rational arithmetic, token-bucket arrival curves, rate-latency service curves, their delay
 * and backlog bounds, and the network model that composes shared-service switch models along
 * shadow paths.
 */
package org.planck.app.admission.algo;
