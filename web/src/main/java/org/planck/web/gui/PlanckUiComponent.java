package org.planck.web.gui;

import com.google.common.collect.ImmutableList;
import org.onosproject.ui.UiExtension;
import org.onosproject.ui.UiExtensionService;
import org.onosproject.ui.UiMessageHandlerFactory;
import org.onosproject.ui.UiTopoOverlayFactory;
import org.onosproject.ui.UiView;
import org.onosproject.ui.UiViewHidden;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.planck.api.telemetry.PortLoadService;

import java.util.List;

/**
 * Registers Planck's topology overlay with the ONOS GUI: the hidden view "planckTopov" whose
 * resources (planckTopov/css.html, js.html, app/view/planckTopov/*) the GUI injects into the
 * topology view, the overlay itself and its websocket message handler.
 */
@Component(immediate = true)
public class PlanckUiComponent {
    /** Resource path and hidden view id of the overlay's JS/CSS. */
    static final String VIEW_ID = "planckTopov";

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected UiExtensionService uiExtensionService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PortLoadService portLoadService;

    private UiExtension extension;

    @Activate
    protected void activate() {
        List<UiView> views = ImmutableList.of(new UiViewHidden(VIEW_ID));
        UiMessageHandlerFactory handlers = () -> ImmutableList.of(new PlanckTopovMessageHandler());
        UiTopoOverlayFactory overlays = () -> ImmutableList.of(new PlanckTopoOverlay(portLoadService));
        extension = new UiExtension.Builder(getClass().getClassLoader(), views)
                .resourcePath(VIEW_ID)
                .messageHandlerFactory(handlers)
                .topoOverlayFactory(overlays)
                .build();
        uiExtensionService.register(extension);
    }

    @Deactivate
    protected void deactivate() {
        uiExtensionService.unregister(extension);
    }
}
