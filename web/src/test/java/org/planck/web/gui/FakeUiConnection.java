package org.planck.web.gui;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.ui.UiConnection;
import org.onosproject.ui.model.topo.UiTopoLayout;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** A GUI websocket that keeps what the handler sends. */
class FakeUiConnection implements UiConnection {
    final List<ObjectNode> sent = new ArrayList<>();

    @Override
    public String userName() {
        return "karaf";
    }

    @Override
    public UiTopoLayout currentLayout() {
        return null;
    }

    @Override
    public void setCurrentLayout(UiTopoLayout topoLayout) {
    }

    @Override
    public String currentView() {
        return "topo";
    }

    @Override
    public void setCurrentView(String viewId) {
    }

    @Override
    public synchronized void sendMessage(ObjectNode message) {
        sent.add(message.deepCopy());
    }

    @Override
    public synchronized void sendMessage(String type, ObjectNode payload) {
        ObjectNode m = payload.objectNode();
        m.put("event", type);
        m.set("payload", payload);
        sent.add(m);
    }

    /** Payloads of the messages of one event type, oldest first. */
    synchronized List<ObjectNode> payloads(String event) {
        return sent.stream().filter(m -> event.equals(m.path("event").asText()))
                .map(m -> (ObjectNode) m.get("payload")).collect(Collectors.toList());
    }

    /** Payload of the last message of one event type. */
    ObjectNode last(String event) {
        List<ObjectNode> p = payloads(event);
        if (p.isEmpty()) {
            throw new AssertionError("no " + event + " message in " + sent);
        }
        return p.get(p.size() - 1);
    }
}
