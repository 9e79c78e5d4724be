package org.planck.app.store;

import org.onlab.util.KryoNamespace;
import org.onosproject.store.serializers.KryoNamespaces;
import org.onosproject.store.service.Serializer;
import org.planck.api.FlowKey;
import org.planck.api.MirrorMode;
import org.planck.api.MirrorSession;
import org.planck.api.fabric.FlowPlacement;
import org.planck.api.fabric.ShadowPathId;

/**
 * Kryo namespace of the values Planck keeps in ONOS distributed primitives.
 */
public final class PlanckSerializers {

    /** ONOS API types plus Planck's own stored types. */
    public static final KryoNamespace NAMESPACE = KryoNamespace.newBuilder()
            .register(KryoNamespaces.API)
            .nextId(KryoNamespaces.BEGIN_USER_CUSTOM_ID)
            .register(MirrorSession.class, MirrorSession.State.class, MirrorMode.class,
                    ShadowPathId.class, FlowKey.class, FlowPlacement.class)
            .build("planck");

    /** Serializer for consistent maps of Planck state. */
    public static final Serializer SERIALIZER = Serializer.using(NAMESPACE);

    private PlanckSerializers() {
    }
}
