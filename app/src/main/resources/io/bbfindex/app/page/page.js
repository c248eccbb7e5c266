// The page at /: a Bitcoin txid (or an Ethereum hash, 0x...) looked up through the JSON routes,
// then followed over Server-Sent Events, and the server's follow state. No framework, no build
// step: what the server says is only ever written with textContent (never parsed as HTML), and the
// Content-Security-Policy allows nothing but this origin's files.
'use strict';

(function () {
  const BITCOIN = /^[0-9a-f]{64}$/;
  const ETHEREUM = /^0x[0-9a-f]{64}$/;
  // The event kinds of /v1/tx/{txid}/events and /v1/eth/tx/{hash}/events (docs/wallet-api.md).
  const KINDS = ['mempool', 'confirmed', 'unconfirmed', 'stale', 'replaced', 'removed', 'unknown',
    'pending', 'reorged'];
  const STATUS_EVERY_MS = 5000;
  const MAX_EVENTS_SHOWN = 50;

  const $ = (id) => document.getElementById(id);
  let source = null;
  let current = null; // the id the page follows

  function show(el, text) {
    el.textContent = text;
  }

  function printable(value) {
    if (value === null || value === undefined) return '';
    return typeof value === 'object' ? JSON.stringify(value) : String(value);
  }

  function renderFields(answer) {
    const list = $('fields');
    list.replaceChildren();
    for (const [key, value] of Object.entries(answer)) {
      const dt = document.createElement('dt');
      dt.textContent = key;
      const dd = document.createElement('dd');
      dd.textContent = printable(value);
      list.append(dt, dd);
    }
  }

  function setState(kind) {
    const state = $('state');
    show(state, kind);
    state.dataset.kind = kind;
  }

  function logEvent(kind, data) {
    const item = document.createElement('li');
    const time = new Date().toLocaleTimeString();
    item.textContent = time + ' ' + kind + ' ' + printable(data);
    const list = $('events');
    list.prepend(item);
    while (list.children.length > MAX_EVENTS_SHOWN) list.lastElementChild.remove();
  }

  function jsonRoute(id) {
    return ETHEREUM.test(id) ? '/v1/eth/tx/' + id : '/v1/tx/' + id;
  }

  function eventsRoute(id) {
    return ETHEREUM.test(id) ? '/v1/eth/tx/' + id + '/events' : '/v1/tx/' + id + '/events';
  }

  /** The JSON route's answer: its state (status, or unknown on a 404) and its fields. */
  async function refresh(id) {
    const response = await fetch(jsonRoute(id), { headers: { Accept: 'application/json' } });
    let answer;
    try {
      answer = await response.json();
    } catch (e) {
      answer = { error: 'not JSON', httpStatus: response.status };
    }
    if (id !== current) return null;
    renderFields(answer);
    if (response.ok) return answer.status || 'unknown';
    if (response.status === 404 && answer.present === false) return 'unknown';
    show($('message'), printable(answer.detail || answer.error || response.statusText));
    return null;
  }

  function follow(id) {
    if (source) source.close();
    show($('live'), 'connecting');
    source = new EventSource(eventsRoute(id));
    source.onopen = () => show($('live'), 'connected');
    source.onerror = () => {
      // EventSource reconnects by itself (with Last-Event-ID) unless the server refused it.
      show($('live'), source.readyState === EventSource.CLOSED ? 'unavailable' : 'reconnecting');
    };
    for (const kind of KINDS) {
      source.addEventListener(kind, (event) => onEvent(id, kind, event));
    }
  }

  function onEvent(id, kind, event) {
    if (id !== current) return;
    let data = {};
    try {
      data = JSON.parse(event.data);
    } catch (e) {
      data = { unreadable: String(event.data) };
    }
    setState(kind);
    logEvent(kind, data);
    if (kind === 'stale' && data.follow) {
      show($('message'), 'The server cannot reach its node (' + printable(data.follow) +
        '): what it answers may be old.');
      status();
      return;
    }
    show($('message'), '');
    // the location (block, height, file position) comes from the JSON route
    refresh(id).catch((e) => show($('message'), String(e)));
    if (kind !== 'mempool' && kind !== 'pending') status();
  }

  async function lookup(raw) {
    const id = raw.trim().toLowerCase();
    show($('message'), '');
    if (!BITCOIN.test(id) && !ETHEREUM.test(id)) {
      show($('message'), 'A txid is 64 hex characters; an Ethereum hash is 0x and 64 hex characters.');
      return;
    }
    current = id;
    history.replaceState(null, '', '#' + id);
    $('result').hidden = false;
    show($('kind-label'), ETHEREUM.test(id) ? 'Ethereum transaction' : 'Bitcoin transaction');
    setState('…');
    $('events').replaceChildren();
    try {
      const state = await refresh(id);
      if (state && id === current) setState(state);
    } catch (e) {
      show($('message'), 'The server did not answer: ' + e);
    }
    if (id === current) follow(id);
  }

  async function getJson(path) {
    try {
      const response = await fetch(path, { headers: { Accept: 'application/json' } });
      return { ok: response.ok, status: response.status, body: await response.json() };
    } catch (e) {
      return { ok: false, status: 0, body: {} };
    }
  }

  // A source this server does not have (404) is not asked again.
  const hasSource = { bitcoin: true, eth: true };

  async function sourceStatus(source, path) {
    if (!hasSource[source]) return { ok: false, status: 404, body: {} };
    const answer = await getJson(path);
    if (answer.status === 404) hasSource[source] = false;
    return answer;
  }

  /** The server's follow state: /readyz, then /v1/status (Bitcoin) or /v1/eth/status. */
  async function status() {
    const parts = [];
    const ready = await getJson('/readyz');
    parts.push(ready.ok ? 'ready' : 'not ready' + (ready.body.detail ? ' (' + ready.body.detail + ')' : ''));
    const bitcoin = await sourceStatus('bitcoin', '/v1/status');
    let state = ready.ok ? 'ready' : 'not ready';
    if (bitcoin.ok) {
      const f = bitcoin.body.follow;
      if (f) {
        state = f.state;
        parts.push('Bitcoin: ' + f.state + (f.lastError ? ' (' + f.lastError + ')' : ''));
      }
      parts.push('tip ' + printable(bitcoin.body.tipHeight));
      if (bitcoin.body.nodeTip && bitcoin.body.nodeTip.height >= 0) {
        parts.push('node tip ' + bitcoin.body.nodeTip.height);
      }
      if (typeof bitcoin.body.mempoolSize === 'number') parts.push('mempool ' + bitcoin.body.mempoolSize);
    }
    const eth = await sourceStatus('eth', '/v1/eth/status');
    if (eth.ok) {
      parts.push('Ethereum: ' + (eth.body.caughtUp ? 'caught up' : 'catching up') +
        ', tip ' + printable(eth.body.servedTip) +
        (eth.body.lastError ? ' (' + eth.body.lastError + ')' : ''));
    }
    const el = $('follow');
    show(el, parts.join(' · '));
    el.dataset.state = state;
  }

  document.addEventListener('DOMContentLoaded', () => {
    $('lookup').addEventListener('submit', (event) => {
      event.preventDefault();
      lookup($('txid').value);
    });
    status();
    setInterval(status, STATUS_EVERY_MS);
    let fromAddress = '';
    try {
      fromAddress = decodeURIComponent(location.hash.slice(1));
    } catch (e) {
      // a malformed fragment (a stray %): nothing to look up
    }
    if (fromAddress) {
      $('txid').value = fromAddress;
      lookup(fromAddress);
    }
  });
})();
