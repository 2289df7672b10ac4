// The table lister: reads its SDK token from the URL fragment (never sent to a server), then
// lists the tenant's data tables through the API, as the app's SDK user. Served under
// <base>/apps/installs/<bundle>/sessions/<session>/assets/, so the API's base path is what
// comes before /apps/installs/.
(function main() {
  const token = new URLSearchParams(location.hash.slice(1)).get('sdk_token');
  // The token stays in memory only: out of the address bar and the history.
  history.replaceState(null, '', location.pathname);
  const marker = '/apps/installs/';
  const base = location.pathname.slice(0, location.pathname.indexOf(marker) + 1);
  const [, , bundleId, , sessionId] = location.pathname.slice(base.length).split('/');
  const status = document.getElementById('status');
  const list = document.getElementById('tables');

  function call(method, path) {
    return fetch(base + path, { method, headers: { authorization: 'Bearer ' + token } }).then((response) => {
      if (!response.ok) throw new Error(method + ' ' + path + ': ' + response.status);
      return response.json();
    });
  }

  function show(page) {
    for (const table of page.items) {
      const item = document.createElement('li');
      item.textContent = table.name;
      list.appendChild(item);
    }
    status.textContent = page.total + (page.total === 1 ? ' table' : ' tables');
    document.body.dataset.state = 'ready';
  }

  if (!token) {
    status.textContent = 'Open this app from the service: its link carries the token.';
    document.body.dataset.state = 'failed';
    return;
  }
  call('POST', 'apps/installs/' + bundleId + '/sessions/' + sessionId + '/activity')
    .then(() => call('GET', 'data-tables?sort=name'))
    .then(show)
    .catch((error) => {
      status.textContent = String(error.message);
      document.body.dataset.state = 'failed';
    });
})();
