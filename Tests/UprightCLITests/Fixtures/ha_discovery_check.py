#!/usr/bin/python3
"""Checks MQTT discovery messages by the rules Home Assistant applies to them, and renders their
templates (Jinja, as Home Assistant does) against a state message.

  ha_discovery_check.py MESSAGES STATE_TOPIC

MESSAGES: `mosquitto_sub -v` output (a topic, a space, a one-line payload). Each
`PREFIX/COMPONENT/NODE/OBJECT/config` message is checked: the node and object ids and the
`unique_id` made of letters, digits, `_` and `-` only (anything else and Home Assistant drops the
entity without a word), the keys each component requires, a device with identifiers, a name and
a software version; each `value_template` renders against every message on STATE_TOPIC to a
state of at most 255 characters (a longer one leaves the entity unknown), each
`json_attributes_template` to a JSON object. A key a template reads that a state lacks is a fault,
as Home Assistant's templates log it (its `LoggingUndefined`), unless the template gives a
`default`; such a value is not JSON either. Prints one line per entity, and each fault; exits 1
when there is one.
"""
import json
import re
import sys

import jinja2

class LoggingUndefined(jinja2.Undefined):
    """Home Assistant's undefined: each use is a warning in its log; `tojson` cannot take it."""
    used = []

    def _say(self):
        LoggingUndefined.used.append(self._undefined_message)

    def __str__(self):
        self._say()
        return ''

    def __bool__(self):
        self._say()
        return False

    def __iter__(self):
        self._say()
        return iter(())

    def __eq__(self, other):
        self._say()
        return False

    __hash__ = jinja2.Undefined.__hash__


ID = re.compile(r'^[a-zA-Z0-9_-]+$')
REQUIRED = {'button': ['command_topic'], 'switch': ['command_topic'], 'select': ['command_topic', 'options'],
            'sensor': ['state_topic'], 'image': ['image_topic'], 'binary_sensor': ['state_topic'],
            'number': ['command_topic'], 'text': ['command_topic'], 'update': ['state_topic']}


def main():
    path, state_topic = sys.argv[1], sys.argv[2]
    configs, states = [], []
    for line in open(path, encoding='utf-8', errors='replace'):
        topic, _, payload = line.rstrip('\n').partition(' ')
        if topic.endswith('/config'):
            configs.append((topic, payload))
        elif topic == state_topic:
            states.append(json.loads(payload))
    state = states[-1] if states else None
    faults = []
    env = jinja2.Environment(undefined=LoggingUndefined)
    if not configs:
        faults.append('no discovery messages')
    for topic, payload in configs:
        parts = topic.split('/')
        if len(parts) != 5:
            faults.append('%s: not PREFIX/COMPONENT/NODE/OBJECT/config' % topic)
            continue
        _, component, node, obj, _ = parts
        for what, value in (('node id', node), ('object id', obj)):
            if not ID.match(value):
                faults.append('%s: the %s %r has characters other than letters, digits, _ and -' % (topic, what, value))
        try:
            config = json.loads(payload)
        except ValueError as e:
            faults.append('%s: not JSON: %s' % (topic, e))
            continue
        for key in ['unique_id', 'object_id']:
            if key in config and not ID.match(config[key]):
                faults.append('%s: %s %r is not an id' % (topic, key, config[key]))
        for key in REQUIRED.get(component, []):
            if not config.get(key):
                faults.append('%s: a %s needs %s' % (topic, component, key))
        device = config.get('device') or {}
        for key in ['identifiers', 'name', 'sw_version']:
            if not device.get(key):
                faults.append('%s: the device has no %s' % (topic, key))
        # Home Assistant takes a configuration_url that is a URL with a host (or homeassistant://).
        url = device.get('configuration_url')
        if url is not None and not re.match(r'^(https?://[^/\s]+(/\S*)?|homeassistant://\S+)$', url):
            faults.append('%s: configuration_url %r is not a URL' % (topic, url))
        shown = ''
        if 'value_template' in config and state is not None:
            try:
                value = env.from_string(config['value_template']).render(value_json=state)
                shown = value
                if len(value) > 255:
                    faults.append('%s: the state is %d characters long (255 at most)' % (topic, len(value)))
            except jinja2.TemplateError as e:
                faults.append('%s: value_template: %s' % (topic, e))
        if 'json_attributes_template' in config and state is not None:
            try:
                attributes = json.loads(env.from_string(config['json_attributes_template']).render(value_json=state))
                if not isinstance(attributes, dict):
                    faults.append('%s: the attributes are not a JSON object' % topic)
            except (jinja2.TemplateError, ValueError) as e:
                faults.append('%s: json_attributes_template: %s' % (topic, e))
        # Every state seen, the first ones too (before anything played, nothing refused).
        for earlier in states:
            for key in ['value_template', 'json_attributes_template']:
                if key not in config:
                    continue
                LoggingUndefined.used = []
                try:
                    json.dumps(env.from_string(config[key]).render(value_json=earlier))
                    rendered = env.from_string(config[key]).render(value_json=earlier)
                    if key == 'json_attributes_template':
                        json.loads(rendered)
                except (jinja2.TemplateError, TypeError, ValueError) as e:
                    faults.append('%s: %s fails on %s: %s' % (topic, key, json.dumps(earlier)[:120], e))
                    continue
                for said in sorted(set(LoggingUndefined.used)):
                    faults.append('%s: %s: Home Assistant would log "%s" for %s' % (topic, key, said,
                                                                                       json.dumps(earlier)[:120]))
        print('%s %s/%s: %s' % (component, node, obj, shown[:80]))
    if state is None:
        faults.append('no state message on %s' % state_topic)
    for f in sorted(set(faults)):
        print('FAULT: ' + f)
    sys.exit(1 if faults else 0)


if __name__ == '__main__':
    main()
