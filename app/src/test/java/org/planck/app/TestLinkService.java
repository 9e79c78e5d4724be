package org.planck.app;

import com.google.common.collect.ImmutableList;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DefaultLink;
import org.onosproject.net.Link;
import org.onosproject.net.link.LinkEvent;
import org.onosproject.net.link.LinkListener;
import org.onosproject.net.link.LinkServiceAdapter;
import org.onosproject.net.provider.ProviderId;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Links for component tests; events reach listeners synchronously.
 */
public class TestLinkService extends LinkServiceAdapter {
    private static final ProviderId PID = new ProviderId("lldp", "org.planck.test");
    private final Map<ConnectPoint, Link> bySource = new ConcurrentHashMap<>();
    private final List<LinkListener> listeners = new CopyOnWriteArrayList<>();

    public void addLink(ConnectPoint src, ConnectPoint dst) {
        Link l = DefaultLink.builder().providerId(PID).src(src).dst(dst).type(Link.Type.DIRECT)
                .state(Link.State.ACTIVE).build();
        bySource.put(src, l);
        fire(new LinkEvent(LinkEvent.Type.LINK_ADDED, l));
    }

    /** Takes down both directions of a cable. */
    public void cut(ConnectPoint a, ConnectPoint b) {
        for (ConnectPoint src : new ConnectPoint[]{a, b}) {
            Link l = bySource.remove(src);
            if (l != null) {
                fire(new LinkEvent(LinkEvent.Type.LINK_REMOVED, l));
            }
        }
    }

    public Link link(ConnectPoint src) {
        return bySource.get(src);
    }

    private void fire(LinkEvent e) {
        listeners.forEach(l -> l.event(e));
    }

    @Override
    public int getLinkCount() {
        return bySource.size();
    }

    @Override
    public Iterable<Link> getLinks() {
        return ImmutableList.copyOf(bySource.values());
    }

    @Override
    public Iterable<Link> getActiveLinks() {
        return ImmutableList.copyOf(bySource.values());
    }

    @Override
    public void addListener(LinkListener listener) {
        listeners.add(listener);
    }

    @Override
    public void removeListener(LinkListener listener) {
        listeners.remove(listener);
    }
}
