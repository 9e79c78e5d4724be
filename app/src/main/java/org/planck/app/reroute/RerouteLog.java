package org.planck.app.reroute;

import com.google.common.collect.ImmutableList;
import org.onosproject.event.AbstractListenerManager;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.planck.api.te.PlanckRerouteEvent;
import org.planck.api.te.PlanckRerouteListener;
import org.planck.api.te.Reroute;
import org.planck.api.te.RerouteService;
import org.slf4j.Logger;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;
import static org.slf4j.LoggerFactory.getLogger;

/**
 * Keeps the log of recent reroutes (bounded: the oldest entry is dropped) and posts
 * {@link PlanckRerouteEvent}s for them.
 */
@Component(immediate = true, service = RerouteService.class)
public class RerouteLog extends AbstractListenerManager<PlanckRerouteEvent, PlanckRerouteListener>
        implements RerouteService {

    /** Reroutes kept for the CLI/REST log. */
    public static final int LOG_CAPACITY = 1024;

    private final Logger log = getLogger(getClass());
    private final Deque<Reroute> recent = new ArrayDeque<>(LOG_CAPACITY);
    private final LongAdder reroutes = new LongAdder();

    @Activate
    protected void activate() {
        eventDispatcher.addSink(PlanckRerouteEvent.class, listenerRegistry);
        log.info("Started");
    }

    @Deactivate
    protected void deactivate() {
        eventDispatcher.removeSink(PlanckRerouteEvent.class);
        log.info("Stopped");
    }

    @Override
    public void report(PlanckRerouteEvent.Type type, Reroute reroute) {
        checkNotNull(type, "type");
        checkNotNull(reroute, "reroute");
        synchronized (recent) {
            if (recent.size() == LOG_CAPACITY) {
                recent.removeLast();
            }
            recent.addFirst(reroute);
        }
        reroutes.increment();
        post(new PlanckRerouteEvent(type, reroute));
    }

    @Override
    public List<Reroute> recent(int max) {
        checkArgument(max >= 0, "max must be >= 0");
        ImmutableList.Builder<Reroute> b = ImmutableList.builder();
        synchronized (recent) {
            Iterator<Reroute> it = recent.iterator();
            for (int i = 0; i < max && it.hasNext(); i++) {
                b.add(it.next());
            }
        }
        return b.build();
    }

    @Override
    public long rerouteCount() {
        return reroutes.sum();
    }
}
