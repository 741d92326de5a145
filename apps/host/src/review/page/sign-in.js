// Exchanges the one-time code in the link's fragment for the session cookie, then loads the page.
(async () => {
  const status = document.getElementById('sign-in-status');
  const code = new URLSearchParams(location.hash.slice(1)).get('code');
  if (!code) return;
  // The code leaves the address bar (and the history) before anything else.
  history.replaceState(null, '', location.pathname);
  status.textContent = 'Signing in…';
  try {
    const res = await fetch('/review/sign-in', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-WS-Review': '1' },
      body: JSON.stringify({ code }),
      credentials: 'same-origin',
    });
    const answer = await res.json();
    if (answer.ok) location.replace('/review');
    else status.textContent = answer.message;
  } catch {
    status.textContent = 'ws serve did not answer; is it still running?';
  }
})();
