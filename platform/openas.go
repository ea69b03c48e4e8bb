package platform

// Opening a file that is still arriving. A download's bytes are in
// NAME.part until it is verified, and the desktop knows no application
// for ".part"; a torrent's file is read through a loopback HTTP address
// (engine/torrent's Streams), which the desktop would give a web
// browser. OpenAs opens either with the application of the final name's
// type, as a double click on a finished file of that name would:
//
//   - Linux and the BSDs: the type is the final name's in the shared
//     MIME database (the globs of shared-mime-info, which Go's mime
//     package reads), the application is what `xdg-mime query default`
//     says (the user's and the system's mimeapps.list, as every desktop
//     keeps them), and its .desktop file's Exec line is run with the file
//     or URL. A file is given through a symbolic link with the final name
//     in a private folder, so that the application sees the name it
//     expects and follows the .part as it grows. Without xdg-mime, or
//     with no default application for the type, a file is handed to
//     xdg-open through that link, which may still find one by the
//     file's contents.
//   - Windows: ShellExecuteEx with the final name's extension as the
//     class, which runs the extension's registered open command on the
//     .part or the URL.
//   - macOS: a file through the link, with `open`; a URL cannot be given
//     to the application of a file type there, and says so.
