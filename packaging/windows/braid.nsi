; Braid's Windows installer: per user, no administrator rights. Built on
; Linux with NSIS (Debian's nsis):
;
;   makensis -DVERSION=0.1.0 -DBIN=DIR -DOUTFILE=braid-setup.exe packaging/windows/braid.nsi
;
; DIR holds the two programs, cross-compiled with mingw-w64 (see README):
;   braid.exe         the command line (console subsystem, built headless),
;                     as bin/braid on Linux: `braid get`, `braid queue`, ...
;   braid-window.exe  the window (GUI subsystem, -ldflags -H=windowsgui), as
;                     bin/braid-window: the Start menu, double-clicked files
;                     and magnet links open it, and no console flashes.
; braid.exe hands `braid.exe [SOURCE...]` to braid-window.exe beside it.
;
; The file types, the magnet: handler and the browsers' native messaging
; host are registered by `braid-window.exe install` and removed by
; `braid-window.exe uninstall`: the keys and manifests are written and
; removed by one piece of code (platform.Register, platform.RegisterNativeHost
; and their Unregister), the same a user runs by hand, so the installer and
; `braid install` never disagree, and uninstalling removes the keys and
; folders Braid's were the last of, keeping other programs'.
; This script writes only what is the installer's own: the files, the
; Start-menu entry and the Add/Remove Programs entry.
;
; Silent: braid-setup.exe /S; uninstall.exe /S keeps the queue and settings,
; uninstall.exe /S /REMOVEDATA removes them too. Downloads are never touched.

; Braid is built for amd64 only; a 64-bit installer also runs under wine64 alone.
Target amd64-unicode
; The release is LZMA; the installer test passes -DCOMPRESSOR=zlib, since
; LZMA of the two programs takes minutes of a busy machine.
!ifndef COMPRESSOR
  !define COMPRESSOR "/SOLID lzma"
!endif
SetCompressor ${COMPRESSOR}
RequestExecutionLevel user

!ifndef VERSION
  !error "makensis -DVERSION=x.y.z: the version is braid's (cmd/braid/cli.go)"
!endif
!ifndef BIN
  !error "makensis -DBIN=DIR: the folder with braid.exe and braid-window.exe"
!endif
!ifndef OUTFILE
  !define OUTFILE "braid-setup-${VERSION}.exe"
!endif
; The repository's root, from this script's folder (makensis runs there).
!ifndef ROOT
  !define ROOT "..\.."
!endif

!define UNINSTKEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\Braid"
!define PUBLISHER "The Braid authors"

!include "MUI2.nsh"
!include "FileFunc.nsh"
!include "LogicLib.nsh"

Name "Braid"
OutFile "${OUTFILE}"
InstallDir "$LOCALAPPDATA\Programs\Braid"
InstallDirRegKey HKCU "${UNINSTKEY}" "InstallLocation"
ShowInstDetails show
ShowUninstDetails show
VIProductVersion "${VERSION}.0"
VIAddVersionKey "ProductName" "Braid"
VIAddVersionKey "FileDescription" "Braid installer"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "CompanyName" "${PUBLISHER}"
VIAddVersionKey "LegalCopyright" "Apache License 2.0"

!define MUI_ABORTWARNING
!define MUI_FINISHPAGE_RUN "$INSTDIR\braid-window.exe"
!define MUI_FINISHPAGE_RUN_TEXT "Open Braid"
!define MUI_LICENSEPAGE_TEXT_TOP "Braid is licensed under the Apache License, Version 2.0."
!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_LICENSE "${ROOT}\LICENSE"
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH

!define MUI_COMPONENTSPAGE_TEXT_TOP "Your downloaded files are never removed. Tick the box to also remove Braid's queue, settings and logs."
!insertmacro MUI_UNPAGE_COMPONENTS
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

Function .onInit
  SetShellVarContext current
FunctionEnd

Section "Braid" SecBraid
  SectionIn RO
  SetOutPath "$INSTDIR"
  File "${BIN}\braid.exe"
  File "${BIN}\braid-window.exe"
  File "/oname=LICENSE.txt" "${ROOT}\LICENSE"
  File "/oname=third-party-licences.txt" "${ROOT}\assets\third-party-licences.txt"
  WriteUninstaller "$INSTDIR\uninstall.exe"

  CreateShortcut "$SMPROGRAMS\Braid.lnk" "$INSTDIR\braid-window.exe" "" "$INSTDIR\braid-window.exe" 0 SW_SHOWNORMAL "" "Download manager"

  ; The file types, magnet: and the browsers' host, as `braid install` does.
  nsExec::ExecToLog '"$INSTDIR\braid-window.exe" install'
  Pop $0
  ${If} $0 != 0
    DetailPrint "braid install answered $0"
    MessageBox MB_OK|MB_ICONEXCLAMATION "Braid is installed, but it could not register itself for .meta4, .metalink and .torrent files, magnet links and the browser extension (the details above say why). Run $\"$INSTDIR\braid.exe install$\" to try again." /SD IDOK
    SetErrorLevel 2
  ${EndIf}

  WriteRegStr HKCU "${UNINSTKEY}" "DisplayName" "Braid"
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayIcon" "$INSTDIR\braid-window.exe,0"
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINSTKEY}" "Publisher" "${PUBLISHER}"
  WriteRegStr HKCU "${UNINSTKEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINSTKEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKCU "${UNINSTKEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKCU "${UNINSTKEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINSTKEY}" "NoRepair" 1
  ${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
  IntFmt $0 "0x%08X" $0
  WriteRegDWORD HKCU "${UNINSTKEY}" "EstimatedSize" "$0"
SectionEnd

Section "un.Braid" SecUnBraid
  SectionIn RO
  ; The file types, magnet: and the browsers' host, with the keys and the
  ; folders they were the last of, as `braid uninstall` does.
  nsExec::ExecToLog '"$INSTDIR\braid-window.exe" uninstall'
  Pop $0
  ${If} $0 != 0
    DetailPrint "braid uninstall answered $0"
  ${EndIf}

  Delete "$SMPROGRAMS\Braid.lnk"
  Delete "$INSTDIR\braid.exe"
  Delete "$INSTDIR\braid-window.exe"
  Delete "$INSTDIR\LICENSE.txt"
  Delete "$INSTDIR\third-party-licences.txt"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"
  DeleteRegKey HKCU "${UNINSTKEY}"
SectionEnd

; The queue (the state folder %LOCALAPPDATA%\Braid, with its lock and log),
; the trusted keys (%APPDATA%\Braid) and the window's preferences. Unticked
; unless /REMOVEDATA is given.
Section /o "un.Also remove the queue, settings and logs" SecRemoveData
  RMDir /r "$APPDATA\Braid"
  RMDir /r "$LOCALAPPDATA\Braid"
  RMDir /r "$APPDATA\fyne\io.github.braid_dm.braid"
  RMDir "$APPDATA\fyne"
SectionEnd

Function un.onInit
  SetShellVarContext current
  ${GetParameters} $R0
  ClearErrors
  ${GetOptions} $R0 "/REMOVEDATA" $R1
  ${IfNot} ${Errors}
    !insertmacro SelectSection ${SecRemoveData}
  ${EndIf}
FunctionEnd
