# The phone in the interop test: gPodder's own client library, mygpoclient, against the test
# server. `phone.py URL upload FEED EPISODE` subscribes to FEED on device `phone` and uploads a
# play of EPISODE; `phone.py URL download` prints every episode action as mygpoclient reads it.
import json
import sys

from mygpoclient import api

url, command = sys.argv[1], sys.argv[2]
client = api.MygPodderClient('alice', 's3cret-pass', url)
if command == 'upload':
    feed, episode = sys.argv[3], sys.argv[4]
    client.update_device_settings('phone', 'mygpoclient phone', 'mobile')
    client.update_subscriptions('phone', [feed], [])
    action = api.EpisodeAction(feed, episode, 'play', device='phone', timestamp='2030-01-01T10:00:00',
                               started=0, position=1234, total=3600)
    print(client.upload_episode_actions([action]))
elif command == 'download':
    changes = client.download_episode_actions(since=0)
    print(json.dumps([action.to_dictionary() for action in changes.actions], sort_keys=True))
