/**
 * Shadow-MAC routing inside ONOS: reads the live topology and hosts, plans shadow trees with
 * {@code routing.algo} and installs and replaces their flow rules. ONOS components.
 */
package org.planck.app.routing;
