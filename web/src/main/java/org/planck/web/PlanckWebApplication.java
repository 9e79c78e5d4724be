package org.planck.web;

import org.onlab.rest.AbstractWebApplication;
import org.planck.web.admission.GuaranteeResource;
import org.planck.web.te.FlowRerouteResource;
import org.planck.web.te.TeModeResource;
import org.planck.web.telemetry.FlowsResource;
import org.planck.web.telemetry.MetricsResource;
import org.planck.web.telemetry.PortsResource;
import org.planck.web.telemetry.RerouteLogResource;
import org.planck.web.telemetry.TelemetryEventsResource;

import java.util.Set;

/**
 * Planck REST API application: registers the resource classes served under /onos/planck.
 */
public class PlanckWebApplication extends AbstractWebApplication {
    @Override
    public Set<Class<?>> getClasses() {
        return getClasses(ProtocolVersionResource.class,
                ConfigResource.class,
                ShadowPathResource.class,
                MirrorResource.class,
                CollectorResource.class,
                TelemetryEventsResource.class,
                FlowsResource.class,
                PortsResource.class,
                MetricsResource.class,
                RerouteLogResource.class,
                TeModeResource.class,
                FlowRerouteResource.class,
                GuaranteeResource.class,
                org.planck.web.inband.IntPortsResource.class,
                org.planck.web.inband.PintFlowsResource.class);
    }
}
