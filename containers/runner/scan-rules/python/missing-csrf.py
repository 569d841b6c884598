import os

from django.views.decorators.csrf import csrf_exempt
from flask import Flask
from flask_wtf.csrf import CSRFProtect

# ruleid: bouts.py.missing-csrf.flask-session-without-csrf
app = Flask(__name__)
app.secret_key = os.environ["SECRET_KEY"]

# ok: bouts.py.missing-csrf.flask-session-without-csrf
protected = Flask(__name__)
protected.secret_key = os.environ["SECRET_KEY"]
CSRFProtect(protected)

# ruleid: bouts.py.missing-csrf.csrf-disabled
WTF_CSRF_ENABLED = False


# ruleid: bouts.py.missing-csrf.csrf-disabled
@csrf_exempt
def transfer(request):
    return None


# ok: bouts.py.missing-csrf.csrf-disabled
def view(request):
    return None
