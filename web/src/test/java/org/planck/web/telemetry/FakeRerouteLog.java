package org.planck.web.telemetry;

import org.planck.api.te.PlanckRerouteEvent;
import org.planck.api.te.PlanckRerouteListener;
import org.planck.api.te.Reroute;
import org.planck.api.te.RerouteService;

import java.util.List;

/**
 * A reroute log over a list kept newest first.
 */
class FakeRerouteLog implements RerouteService {
    private final List<Reroute> newestFirst;

    FakeRerouteLog(List<Reroute> newestFirst) {
        this.newestFirst = newestFirst;
    }

    @Override
    public void report(PlanckRerouteEvent.Type type, Reroute reroute) {
        newestFirst.add(0, reroute);
    }

    @Override
    public List<Reroute> recent(int max) {
        return newestFirst.subList(0, Math.min(max, newestFirst.size()));
    }

    @Override
    public long rerouteCount() {
        return newestFirst.size();
    }

    @Override
    public void addListener(PlanckRerouteListener listener) {
    }

    @Override
    public void removeListener(PlanckRerouteListener listener) {
    }
}
