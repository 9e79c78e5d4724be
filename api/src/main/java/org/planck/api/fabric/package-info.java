/**
 * Plain-data model of a switching fabric and of the shadow-MAC routes planned over it.
 *
 * <p>These types carry no ONOS service dependencies: the ONOS components translate the live
 * topology into a {@link org.planck.api.fabric.FabricGraph}, hand it to the planner, and
 * translate the returned {@link org.planck.api.fabric.PlannedRule}s into flow rules. The lab
 * runs the same planner outside ONOS.</p>
 */
package org.planck.api.fabric;
