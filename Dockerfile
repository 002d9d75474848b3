# One image for every process type; docker-compose.yml picks the Procfile command per service.
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
# A container is its own network namespace: listen on its interfaces; the host decides what is published.
ENV BIND_ADDRESS=0.0.0.0
WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir --require-hashes -r requirements.txt
COPY . .
# The service imports the official client's webhook module (verimail_webhooks re-exports verimail.webhooks).
RUN pip install --no-cache-dir --no-deps ./clients/python
# var/ holds development's own random keys (core/development_secrets.py); compose shares it between the
# containers as a volume, which starts with this directory's owner.
RUN useradd --create-home verimail && mkdir -p var && chown verimail var
USER verimail
EXPOSE 8000 5555
CMD ["gunicorn", "--config", "gunicorn.conf.py", "web:create_app()"]
