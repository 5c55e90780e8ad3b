extension Pages {
    /// The page's script: the status pushed by server-sent events, the controls, the preview, the
    /// content and the configuration. Every change carries the session's CSRF token.
    static let script = #"""
        'use strict';
        const csrf = document.querySelector('meta[name=csrf]').content;
        const $ = (id) => document.getElementById(id);
        const text = (id, value) => { $(id).textContent = value === undefined || value === null || value === '' ? '–' : String(value); };
        const turns = { 'portrait': 0, 'landscape-left': 90, 'portrait-upside-down': 180, 'landscape-right': 270 };
        let status = null;

        async function change(url, body, type) {
          const headers = { 'X-CSRF-Token': csrf };
          if (type) headers['Content-Type'] = type;
          const r = await fetch(url, { method: 'POST', headers, body, credentials: 'same-origin' });
          if (r.status === 401) { location.href = '/login'; throw new Error('logged out'); }
          let answer;
          try { answer = await r.json(); } catch (e) { answer = { ok: false, error: await r.text() }; }
          return { status: r.status, answer };
        }

        function render(s) {
          status = s;
          text('s-device', s.device);
          text('s-interface', s.interface);
          text('s-gravity', s.gravity ? s.gravity.map((v) => v.toFixed(2)).join(', ') + ' m/s²' : '');
          text('s-scene', (s.scenes || []).join(' › '));
          text('s-lock', [
            (s.locked ? 'locked' : 'unlocked') + (s.relock_in != null ? ', locks again in ' + Math.round(s.relock_in) + ' s' : ''),
            s.tablet_mode ? 'tablet mode: ' + s.tablet_mode : '',
          ].filter(Boolean).join('; '));
          text('s-strategy', s.strategy);
          text('s-playing', s.clip ? s.clip + ' (clip)' : s.playing);
          text('s-next', s.next);
          const smil = s.smil;
          text('s-smil', smil ? [smil.index + (smil.etag ? ' (ETag ' + smil.etag + ')' : ''),
            ...(smil.zones || []).map((z) => z.region + ': ' + (z.item || '-') + (z.id ? ' (' + z.id + ')' : ''))].join('; ') : '');
          const d = s.last_decision;
          text('s-decision', d ? d.decision + ' to ' + d.interface + ' (' + [d.reason, d.cause].filter(Boolean).join(', ') + ')' : '');
          text('s-sensor', s.sensor);
          const display = s.display || {};
          text('s-display', [display.backend, display.output, display.identity, display.turns_outputs ? 'turns the output' : 'turns the video surface'].filter(Boolean).join(', '));
          const input = s.input || {};
          text('s-input', (input.devices || []).join(', ') || 'no device');
          text('s-mqtt', s.mqtt);
          text('s-decoder', s.decoder ? [s.decoder.codec, s.decoder.hwdec, s.decoder.decoder_drops + s.decoder.output_drops + ' frames dropped'].filter(Boolean).join(', ') : '');
          text('s-screen', s.screen ? s.screen + (s.screen_next_change ? ' until ' + s.screen_next_change : '') : '');
          text('s-sound', [s.volume != null ? 'volume ' + s.volume + (s.muted ? ', muted' : '') : '',
            s.brightness != null ? 'brightness ' + s.brightness + ' %' : ''].filter(Boolean).join('; '));
          text('s-toast', s.toast || '');
          const hw = s.hardware || {};
          text('s-hardware', [(hw.temperatures || []).map((t) => t.zone + ' ' + t.celsius + ' °C').join(', '),
            hw.storage_errors ? hw.storage_errors + ' storage errors' : '', ...(hw.problems || [])].filter(Boolean).join('; '));
          text('s-node', [s.started ? 'started ' + s.started : '', s.uptime != null ? 'up ' + Math.round(s.uptime / 3600) + ' h' : '',
            ...(s.storage || []).map((r) => r.place + ' ' + r.free_mb + ' MB free of ' + r.total_mb)].filter(Boolean).join('; '));
          const problems = [display.problem, ...(input.problems || []),
            ...(s.failed || []).map((f) => 'cannot play ' + f.item + ': ' + f.reason),
            ...(smil ? [smil.problem, ...(smil.refused || []), ...(smil.faults || [])] : [])].filter(Boolean);
          if (/^sensor (faulty|absent|ended)/.test(s.sensor || '') && !/uri = "none"/.test(s.sensor)) problems.unshift(s.sensor);
          const list = $('problems');
          list.replaceChildren(...problems.map((p) => { const li = document.createElement('li'); li.textContent = p; return li; }));
          const figure = $('device-figure');
          const angle = turns[s.device];
          figure.style.transform = angle === undefined ? 'none' : 'rotate(' + (-angle) + 'deg)';
          figure.setAttribute('aria-label', 'the device held ' + s.device + ', the picture shown ' + s.interface);
          // The gravity the detector sees, in the device's frame (x to its right edge, y to its top):
          // the arrow points down, shorter as the device lies flat.
          const arrow = $('gravity-arrow');
          if (s.gravity) {
            const [x, y] = s.gravity;
            const inPlane = Math.min(1, Math.hypot(x, y) / 9.81);
            arrow.hidden = false;
            arrow.style.height = (0.4 + 2.6 * inPlane).toFixed(2) + 'rem';
            arrow.style.transform = 'rotate(' + (Math.atan2(x, y) * 180 / Math.PI).toFixed(1) + 'deg)';
          } else {
            arrow.hidden = true;
          }
          renderContent();
        }

        function connect() {
          const events = new EventSource('/api/events');
          events.addEventListener('status', (e) => {
            $('connection').textContent = 'live';
            const reply = JSON.parse(e.data);
            if (reply.status) render(reply.status);
          });
          events.onerror = () => { $('connection').textContent = 'reconnecting…'; };
        }

        document.querySelectorAll('button.action').forEach((b) => b.addEventListener('click', async () => {
          const request = { command: b.dataset.command };
          if (b.dataset.argument) request.argument = $(b.dataset.argument).value;
          const { answer } = await change('/api/action', JSON.stringify(request), 'application/json');
          const said = answer.ok ? (answer.message || (answer.queued ? 'queued' : 'done')) : 'refused: ' + (answer.error || 'no reason given');
          $('answer').textContent = b.textContent + ': ' + said;
          $('answer').className = answer.ok ? 'ok' : 'bad';
        }));

        function refreshPreview() {
          const img = new Image();
          img.onload = () => { $('preview').src = img.src; $('preview-note').textContent = 'as the screen shows it, ' + new Date().toLocaleTimeString(); };
          img.onerror = () => { $('preview-note').textContent = 'no screenshot now'; };
          img.src = '/api/screenshot.png?t=' + Date.now();
        }

        // A table row of text cells.
        function row(values) {
          const tr = document.createElement('tr');
          for (const v of values) { const td = document.createElement('td'); td.textContent = v; tr.append(td); }
          return tr;
        }

        let playlist = null;
        async function loadPlaylist() {
          const r = await fetch('/api/playlist', { credentials: 'same-origin' });
          playlist = await r.json();
          renderContent();
        }

        let content = null;
        async function loadContent() {
          const r = await fetch('/api/content', { credentials: 'same-origin' });
          content = await r.json();
          $('folder').textContent = content.folder ? 'Folder ' + content.folder + ', uploads up to ' + Math.round(content.maxBytes / 1048576) + ' MB' : 'No upload folder is set.';
          $('upload').hidden = !content.folder;
          renderContent();
        }

        function renderContent() {
          if (playlist) {
            const under = (path, entry) => path === entry || path.startsWith(entry.replace(/\/$/, '') + '/');
            $('playlist').replaceChildren(...playlist.map((p) => {
              const failures = ((status && status.failed) || []).filter((f) => under(f.item, p.entry));
              const state = status && status.playing && under(status.playing, p.entry) ? 'playing'
                : failures.length ? 'failed: ' + failures.map((f) => f.item.split('/').pop() + ': ' + f.reason).join('; ')
                : p.now ? '' : 'not now (its schedule)';
              return row([p.entry, p.schedule, state]);
            }));
          }
          if (!content) return;
          const playing = status && status.playing ? status.playing.split('/').pop() : null;
          const next = status && status.next ? status.next.split('/').pop() : null;
          const failed = new Map(((status && status.failed) || []).map((f) => [f.item.split('/').pop(), f.reason]));
          $('content').replaceChildren(...content.items.map((item) => {
            const state = item.name === playing ? 'playing' : failed.has(item.name) ? 'failed: ' + failed.get(item.name)
              : item.name === next ? 'next' : '';
            const tr = row([item.name, (item.bytes / 1048576).toFixed(1) + ' MB', state]);
            const td = document.createElement('td');
            const del = document.createElement('button');
            del.type = 'button'; del.textContent = 'Delete'; del.setAttribute('aria-label', 'Delete ' + item.name);
            del.addEventListener('click', async () => {
              if (!confirm('Delete ' + item.name + '?')) return;
              const { answer } = await change('/api/delete?name=' + encodeURIComponent(item.name));
              $('upload-answer').textContent = answer.ok ? item.name + ' deleted' : 'not deleted: ' + answer.error;
              loadContent();
            });
            td.append(del); tr.append(td);
            return tr;
          }));
        }

        $('upload').addEventListener('submit', (e) => {
          e.preventDefault();
          const file = $('upload-file').files[0];
          if (!file) return;
          const xhr = new XMLHttpRequest();
          xhr.open('POST', '/api/upload?name=' + encodeURIComponent(file.name));
          xhr.setRequestHeader('X-CSRF-Token', csrf);
          const progress = $('upload-progress');
          progress.hidden = false;
          xhr.upload.onprogress = (p) => { if (p.lengthComputable) progress.value = p.loaded / p.total; };
          xhr.onload = () => {
            progress.hidden = true;
            let answer;
            try { answer = JSON.parse(xhr.responseText); } catch (x) { answer = { ok: false, error: xhr.responseText }; }
            $('upload-answer').textContent = answer.ok ? file.name + ' uploaded' : 'not uploaded: ' + answer.error;
            $('upload-answer').className = answer.ok ? 'ok' : 'bad';
            loadContent();
          };
          xhr.onerror = () => { progress.hidden = true; $('upload-answer').textContent = 'the upload failed'; };
          xhr.send(file);
        });

        async function loadConfig() {
          const r = await fetch('/api/config', { credentials: 'same-origin' });
          const answer = await r.json();
          if (!r.ok) { $('config-path').textContent = answer.error; $('config-text').disabled = true; return; }
          $('config-path').textContent = answer.path;
          $('config-text').value = answer.text;
        }

        function showDiagnostics(answer, saved) {
          const list = $('config-problems');
          const items = (answer.diagnostics || []).map((d) => {
            const li = document.createElement('li');
            li.textContent = 'line ' + (d.line || '?') + (d.column ? ', column ' + d.column : '') + ': ' + d.severity + ': ' + d.message;
            li.className = d.severity === 'error' ? 'bad' : '';
            return li;
          });
          if (answer.error) { const li = document.createElement('li'); li.textContent = answer.error; items.push(li); }
          if (answer.ok && !items.length) {
            const li = document.createElement('li'); li.className = 'ok';
            li.textContent = saved ? 'saved and applied' + (answer.reload ? ': ' + answer.reload : '') : 'no problems';
            items.push(li);
          }
          list.replaceChildren(...items);
          const first = (answer.diagnostics || []).find((d) => d.severity === 'error' && d.line);
          if (first) {
            const area = $('config-text');
            const lines = area.value.split('\n');
            const start = lines.slice(0, first.line - 1).reduce((n, l) => n + l.length + 1, 0);
            area.focus(); area.setSelectionRange(start, start + (lines[first.line - 1] || '').length);
          }
        }

        $('config-check').addEventListener('click', async () => {
          const { answer } = await change('/api/config/check', $('config-text').value, 'text/plain');
          showDiagnostics(answer, false);
        });
        $('config-save').addEventListener('click', async () => {
          const { answer } = await change('/api/config', $('config-text').value, 'text/plain');
          showDiagnostics(answer, answer.ok);
        });

        $('logout').addEventListener('submit', async (e) => {
          e.preventDefault();
          await fetch('/logout', { method: 'POST', headers: { 'X-CSRF-Token': csrf }, credentials: 'same-origin' });
          location.href = '/login';
        });

        connect();
        refreshPreview();
        setInterval(refreshPreview, 5000);
        loadPlaylist();
        setInterval(loadPlaylist, 60000);
        loadContent();
        loadConfig();

        """#
}
