package org.planck.app.telemetry;

import org.onosproject.event.Event;
import org.onosproject.event.EventDeliveryServiceAdapter;
import org.onosproject.event.EventSink;

import java.util.HashMap;
import java.util.Map;

/**
 * Delivers events to their sinks synchronously, on the posting thread, so tests see them at once.
 */
public class SyncEventDelivery extends EventDeliveryServiceAdapter {
    private final Map<Class<?>, EventSink<?>> sinks = new HashMap<>();

    @Override
    public <E extends Event> void addSink(Class<E> eventClass, EventSink<E> sink) {
        sinks.put(eventClass, sink);
    }

    @Override
    public <E extends Event> void removeSink(Class<E> eventClass) {
        sinks.remove(eventClass);
    }

    @Override
    @SuppressWarnings("unchecked")
    public void post(Event event) {
        EventSink<Event> sink = (EventSink<Event>) sinks.get(event.getClass());
        if (sink != null) {
            sink.process(event);
        }
    }
}
