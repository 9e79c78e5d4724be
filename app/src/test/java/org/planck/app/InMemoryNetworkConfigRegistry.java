package org.planck.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.onosproject.net.config.Config;
import org.onosproject.net.config.ConfigFactory;
import org.onosproject.net.config.NetworkConfigEvent;
import org.onosproject.net.config.NetworkConfigListener;
import org.onosproject.net.config.NetworkConfigRegistryAdapter;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * Netcfg registry that behaves like ONOS's for one subject and config class at a time:
 * configs are built by the registered factory, validated with isValid() (the ONOS store
 * rejects invalid ones with IllegalArgumentException), and listeners hear ADDED / UPDATED /
 * REMOVED synchronously.
 */
public class InMemoryNetworkConfigRegistry extends NetworkConfigRegistryAdapter {
    private final ObjectMapper mapper = new ObjectMapper();
    private final Map<Class<?>, ConfigFactory<?, ?>> factories = new ConcurrentHashMap<>();
    private final Map<List<Object>, Config<?>> configs = new ConcurrentHashMap<>();
    private final List<NetworkConfigListener> listeners = new CopyOnWriteArrayList<>();

    @Override
    public void registerConfigFactory(ConfigFactory configFactory) {
        factories.put(configFactory.configClass(), configFactory);
    }

    @Override
    public void unregisterConfigFactory(ConfigFactory configFactory) {
        factories.remove(configFactory.configClass());
    }

    @Override
    public void addListener(NetworkConfigListener listener) {
        listeners.add(listener);
    }

    @Override
    public void removeListener(NetworkConfigListener listener) {
        listeners.remove(listener);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <S, C extends Config<S>> C getConfig(S subject, Class<C> configClass) {
        return (C) configs.get(List.of(subject, configClass));
    }

    @Override
    @SuppressWarnings("unchecked")
    public <S, C extends Config<S>> C applyConfig(S subject, Class<C> configClass, JsonNode json) {
        ConfigFactory<S, C> factory = (ConfigFactory<S, C>) factories.get(configClass);
        checkArgument(factory != null, "no factory for %s", configClass);
        C config = factory.createConfig();
        config.init(subject, factory.configKey(), json.deepCopy(), mapper, c -> { });
        checkArgument(config.isValid(), "Configuration JSON is invalid");
        Config<?> previous = configs.put(List.of(subject, configClass), config);
        NetworkConfigEvent.Type type = previous == null ? NetworkConfigEvent.Type.CONFIG_ADDED
                : NetworkConfigEvent.Type.CONFIG_UPDATED;
        fire(new NetworkConfigEvent(type, subject, config, previous, configClass));
        return config;
    }

    /**
     * Stores a config without validating it and announces it, as a config pushed before
     * the factory was registered would arrive.
     *
     * @param subject     subject
     * @param configClass config class
     * @param json        config JSON, possibly invalid
     * @param <S>         subject type
     * @param <C>         config type
     */
    @SuppressWarnings("unchecked")
    public <S, C extends Config<S>> void forceConfig(S subject, Class<C> configClass, JsonNode json) {
        ConfigFactory<S, C> factory = (ConfigFactory<S, C>) factories.get(configClass);
        C config = factory.createConfig();
        config.init(subject, factory.configKey(), json.deepCopy(), mapper, c -> { });
        Config<?> previous = configs.put(List.of(subject, configClass), config);
        fire(new NetworkConfigEvent(NetworkConfigEvent.Type.CONFIG_UPDATED, subject, config, previous,
                configClass));
    }

    @Override
    public <S, C extends Config<S>> void removeConfig(S subject, Class<C> configClass) {
        Config<?> previous = configs.remove(List.of(subject, configClass));
        if (previous != null) {
            fire(new NetworkConfigEvent(NetworkConfigEvent.Type.CONFIG_REMOVED, subject, null, previous,
                    configClass));
        }
    }

    private void fire(NetworkConfigEvent event) {
        for (NetworkConfigListener l : listeners) {
            if (l.isRelevant(event)) {
                l.event(event);
            }
        }
    }
}
