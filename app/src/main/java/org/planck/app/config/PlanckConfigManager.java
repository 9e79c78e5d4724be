package org.planck.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreService;
import org.onosproject.event.AbstractListenerManager;
import org.onosproject.net.config.ConfigFactory;
import org.onosproject.net.config.NetworkConfigEvent;
import org.onosproject.net.config.NetworkConfigListener;
import org.onosproject.net.config.NetworkConfigRegistry;
import org.onosproject.net.config.basics.SubjectFactories;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.planck.api.config.InvalidConfigException;
import org.planck.api.config.PlanckConfig;
import org.planck.api.config.PlanckConfigEvent;
import org.planck.api.config.PlanckConfigListener;
import org.planck.api.config.PlanckConfigService;
import org.planck.api.config.PlanckSettings;
import org.planck.app.PlanckApp;
import org.slf4j.Logger;

import java.util.Optional;

import static org.slf4j.LoggerFactory.getLogger;

/**
 * Keeps the Planck configuration in force. The configuration lives in ONOS netcfg (so all
 * cluster members see it); every change is validated here and only a valid one replaces
 * the configuration in force.
 */
@Component(immediate = true, service = PlanckConfigService.class)
public class PlanckConfigManager extends AbstractListenerManager<PlanckConfigEvent, PlanckConfigListener>
        implements PlanckConfigService {

    private final Logger log = getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected CoreService coreService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected NetworkConfigRegistry configRegistry;

    private final ConfigFactory<ApplicationId, PlanckConfig> factory =
            new ConfigFactory<ApplicationId, PlanckConfig>(SubjectFactories.APP_SUBJECT_FACTORY,
                    PlanckConfig.class, PlanckConfig.KEY) {
                @Override
                public PlanckConfig createConfig() {
                    return new PlanckConfig();
                }
            };

    private final NetworkConfigListener configListener = new InternalConfigListener();

    private ApplicationId appId;
    private volatile PlanckSettings active;
    private volatile String lastRejection;

    @Activate
    protected void activate() {
        appId = coreService.registerApplication(PlanckApp.APP_NAME);
        eventDispatcher.addSink(PlanckConfigEvent.class, listenerRegistry);
        configRegistry.registerConfigFactory(factory);
        configRegistry.addListener(configListener);
        PlanckConfig present = configRegistry.getConfig(appId, PlanckConfig.class);
        if (present != null) {
            accept(present);
        }
        log.info("Started");
    }

    @Deactivate
    protected void deactivate() {
        configRegistry.removeListener(configListener);
        configRegistry.unregisterConfigFactory(factory);
        eventDispatcher.removeSink(PlanckConfigEvent.class);
        active = null;
        log.info("Stopped");
    }

    @Override
    public Optional<PlanckSettings> settings() {
        return Optional.ofNullable(active);
    }

    @Override
    public PlanckSettings apply(JsonNode json) {
        PlanckSettings settings;
        try {
            settings = PlanckSettings.parse(json);
        } catch (InvalidConfigException e) {
            reject(e.getMessage());
            throw e;
        }
        try {
            configRegistry.applyConfig(appId, PlanckConfig.class, settings.json());
        } catch (IllegalArgumentException e) {
            // The netcfg store validates again; it can only disagree if the JSON changed underneath.
            reject(e.getMessage());
            throw new InvalidConfigException("netcfg refused the configuration: " + e.getMessage());
        }
        // Put it in force now rather than when the netcfg event arrives, so a caller reading
        // back right after a successful apply sees what it wrote.
        install(settings);
        return settings;
    }

    @Override
    public boolean remove() {
        boolean had = active != null;
        configRegistry.removeConfig(appId, PlanckConfig.class);
        uninstall();
        return had;
    }

    @Override
    public Optional<String> lastRejection() {
        return Optional.ofNullable(lastRejection);
    }

    private void accept(PlanckConfig config) {
        Optional<String> reason = config.invalidReason();
        if (reason.isPresent()) {
            reject(reason.get());
            return;
        }
        install(config.settings());
    }

    private synchronized void install(PlanckSettings settings) {
        if (settings.equals(active)) {
            return;
        }
        active = settings;
        log.info("Configuration in force: {}", settings);
        post(new PlanckConfigEvent(PlanckConfigEvent.Type.CONFIG_UPDATED, settings));
    }

    private synchronized void uninstall() {
        PlanckSettings old = active;
        if (old == null) {
            return;
        }
        active = null;
        log.info("Configuration removed");
        post(new PlanckConfigEvent(PlanckConfigEvent.Type.CONFIG_REMOVED, old));
    }

    private void reject(String reason) {
        lastRejection = reason;
        log.warn("Rejected Planck configuration, keeping the previous one: {}", reason);
    }

    private class InternalConfigListener implements NetworkConfigListener {
        @Override
        public boolean isRelevant(NetworkConfigEvent event) {
            return event.configClass() == PlanckConfig.class && appId.equals(event.subject());
        }

        @Override
        public void event(NetworkConfigEvent event) {
            switch (event.type()) {
                case CONFIG_ADDED:
                case CONFIG_UPDATED:
                    event.config().ifPresent(c -> accept((PlanckConfig) c));
                    break;
                case CONFIG_REMOVED:
                    uninstall();
                    break;
                default:
                    break;
            }
        }
    }
}
