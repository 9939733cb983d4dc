"""Static files of the browser client (HTML, CSS, ES modules), served by :mod:`grognard.server`."""
