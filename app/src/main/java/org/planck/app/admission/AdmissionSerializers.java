package org.planck.app.admission;

import org.onlab.util.KryoNamespace;
import org.onosproject.store.serializers.KryoNamespaces;
import org.onosproject.store.service.Serializer;
import org.planck.api.FlowKey;
import org.planck.api.admission.Guarantee;
import org.planck.api.admission.GuaranteeHop;
import org.planck.api.admission.GuaranteeRequest;

/**
 * Kryo namespace of the admitted guarantees kept in a consistent map.
 */
final class AdmissionSerializers {
    static final Serializer SERIALIZER = Serializer.using(KryoNamespace.newBuilder()
            .register(KryoNamespaces.API)
            .nextId(KryoNamespaces.BEGIN_USER_CUSTOM_ID)
            .register(FlowKey.class, GuaranteeRequest.class, GuaranteeHop.class, Guarantee.class,
                    Guarantee.Policing.class)
            .build("planck-admission"));

    private AdmissionSerializers() {
    }
}
