/**
 * Shadow-MAC routing: topology generators, shadow tree construction, the rule planner,
 * recomputation after topology changes and shadow MAC allocation. Plain Java, no ONOS services.
 */
package org.planck.app.routing.algo;
