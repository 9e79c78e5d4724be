/*
 * Planck overlay for the ONOS topology view (legacy GUI overlay framework, as ONOS 2.7
 * apps such as pathpainter use it). Buttons and keys: 1 link load, 2 congestion, 3 the
 * selected host's shadow paths (digits: the topology view keeps the letters for itself). The server pushes highlights every second while it is on.
 */
(function () {
    'use strict';

    var $log, tov, wss;
    var mode = 'load';
    var last = {};
    var hoverDevice = null;
    var panel = null;

    function showPanel() {
        if (!panel) {
            panel = document.createElement('div');
            panel.id = 'planck-topov-panel';
            document.body.appendChild(panel);
        }
        panel.innerHTML = window.planckTopovPanel.panelHtml(last, hoverDevice);
    }

    function hidePanel() {
        if (panel) {
            panel.parentNode.removeChild(panel);
            panel = null;
        }
    }

    function setMode(m) {
        mode = m;
        wss.sendEvent('planckTopovMode', {mode: m});
    }

    function onData(data) {
        last = data;
        showPanel();
    }

    var overlay = {
        overlayId: 'planck-overlay',
        glyphId: 'm_allTraffic',
        tooltip: 'Planck: link load, congestion, shadow paths',

        activate: function () {
            wss.bindHandlers({planckTopovData: onData});
            wss.sendEvent('planckTopovStart', {mode: mode});
            $log.debug('Planck overlay on');
        },
        deactivate: function () {
            wss.sendEvent('planckTopovStop', {});
            wss.unbindHandlers({planckTopovData: onData});
            hidePanel();
        },

        buttons: {
            load: {gid: 'm_allTraffic', tt: 'Link load', cb: function () { setMode('load'); }},
            congestion: {gid: 'm_uiAttached', tt: 'Congested ports', cb: function () { setMode('congestion'); }},
            paths: {gid: 'm_shortestPath', tt: 'Shadow paths of the selected host', cb: function () { setMode('paths'); }}
        },

        keyBindings: {
            1: {cb: function () { setMode('load'); }, tt: 'Planck: link load', gid: 'm_allTraffic'},
            2: {cb: function () { setMode('congestion'); }, tt: 'Planck: congested ports', gid: 'm_uiAttached'},
            3: {cb: function () { setMode('paths'); }, tt: 'Planck: shadow paths of the selected host', gid: 'm_shortestPath'},
            _keyOrder: ['1', '2', '3']
        },

        hooks: {
            escape: function () {
                wss.sendEvent('planckTopovSelect', {id: ''});
                return true;
            },
            emptySelect: function () {
                wss.sendEvent('planckTopovSelect', {id: ''});
            },
            singleSelect: function (data) {
                if (data.class === 'host') {
                    setMode('paths');
                    wss.sendEvent('planckTopovSelect', {id: data.id});
                }
            },
            mouseOver: function (m) {
                hoverDevice = m && m.class === 'device' ? m.id : null;
                showPanel();
            },
            mouseOut: function () {
                hoverDevice = null;
                showPanel();
            }
        }
    };

    angular.module('ovPlanckTopov', [])
        .run(['$log', 'TopoOverlayService', 'WebSocketService',
            function (_$log_, _tov_, _wss_) {
                $log = _$log_;
                tov = _tov_;
                wss = _wss_;
                tov.register(overlay);
            }]);
}());
