import json
import pickle

import yaml


def load(body: bytes):
    # ruleid: bouts.py.insecure-deserialization.unsafe-deserializer
    a = pickle.loads(body)
    # ruleid: bouts.py.insecure-deserialization.unsafe-deserializer
    b = yaml.load(body, Loader=yaml.Loader)
    # ruleid: bouts.py.insecure-deserialization.unsafe-deserializer
    c = yaml.load(body)
    # ok: bouts.py.insecure-deserialization.unsafe-deserializer
    d = yaml.safe_load(body)
    # ok: bouts.py.insecure-deserialization.unsafe-deserializer
    e = json.loads(body)
    return a, b, c, d, e
