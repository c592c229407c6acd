<?xml version="1.0" encoding="UTF-8"?>
<!-- One MMAX2 document (its .mmax file) to RAF 2.0: the twin of the Python reader
     (corefio/formats/mmax2/reader.py) for the documents of a well-formed project.
     Input: the .mmax file. Every other file it reads is given by corefio's engine as a
     URI (parameters common-uri, words-uri, level-uris, scheme-uris): the engine finds
     them as the Python reader does (corefio.formats.mmax2.project.Project), confines them
     to the project or collection, checks them, and under xsltproc hands over private
     copies. The stylesheet builds no path of its own: without those parameters it reads
     no file besides its input, and a level without a URI ("-") has no markables.
     Parameter stem: the .mmax file name without ".mmax" (XSLT 1.0 cannot see the input's
     name); doc-name: the document's name (default: stem; corefio_document/@name wins);
     level-count: how many levels the engine found (a different count here is an error);
     compact: see its declaration.
     As in Python (corefio/formats/mmax2/schemes.py, the rule and its lists): identity
     attributes are the markable_set / markable_pointer attributes of the schemes whose
     name is one of ref, antecedent, anaphor_antecedent, dir_antecedent, coref_set,
     coref_class, coref_chain, coreference, identity, ident (in lower case, ASCII), or
     whose name, id, text, point_to_markable_text or add_to_markableset_text, in lower
     case with each separator made "_" and "_" around it, holds "coref" or "_ident"
     and none of _near_ _non_ _not_ _no_ _quasi_ _partial_ bridg _nident (template
     says-identity); the identity level is
     the first level with one (the first whose name contains "coref" when there are
     several) and becomes the default layer; identity sets give entity ids, other sets
     set memberships, pointers links (identity pointers: coreference; others: the
     attribute name in lower case); a level named sentence/sentences/s without relation
     attributes whose markables are all continuous gives the sentences, made to tile the
     words as the Python reader does (a sentence inside an earlier one is dropped, one
     overlapping the one before starts after it, each run of words outside every
     sentence becomes a sentence without id); a markable repeating an id already used on
     its level is renamed id_dup2, id_dup3 … (xsl:message "duplicate-id:").
     Not done here (the Python reader does it): repairing files that are not well-formed,
     the identity_attribute option, renaming repeated word ids, and the project's layout
     and schemes (the RAF feats "layout" and "scheme": level names and files, the
     common paths file, the other files of the project, attribute order): RAF made here
     and written as MMAX2 again gives a project laid out anew (the rule "layout" says
     so for every document). Word positions are found
     through keys (linear time). Rules applied are reported with xsl:message. -->
<xsl:stylesheet version="1.0"
                xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
                xmlns:exsl="http://exslt.org/common"
                xmlns:str="http://exslt.org/strings"
                xmlns:math="http://exslt.org/math"
                extension-element-prefixes="exsl"
                exclude-result-prefixes="str math">
  <xsl:output method="xml" encoding="UTF-8" indent="no"/>
  <xsl:param name="stem" select="'document'"/>
  <xsl:param name="doc-name" select="''"/>
  <!-- the project's files as URIs, given by corefio's engine: common_paths.xml (or a
       collection's shared file; empty: none), the base data, and one URI per level (in
       the order of the levels) for its level file and its scheme file ("-": none).
       level-count: the number of levels the engine found ('': not checked) -->
  <xsl:param name="common-uri" select="''"/>
  <xsl:param name="words-uri" select="''"/>
  <xsl:param name="level-uris" select="''"/>
  <xsl:param name="scheme-uris" select="''"/>
  <xsl:param name="level-count" select="''"/>
  <!-- 'no': the engine found no id repeated in a level file, so the search for repeated
       ids (a key over each level file) is left out -->
  <xsl:param name="repeated-ids" select="'yes'"/>
  <!-- compact = 'yes': leave out what only people and viewers read (word numbers n, line
       breaks between words) when the layout of the words allows it. corefio's engine sets
       it when its RAF reader walks the result tree itself (readers recompute n); a file
       written for users keeps everything -->
  <xsl:param name="compact" select="'no'"/>

  <xsl:variable name="nl" select="'&#10;'"/>
  <xsl:variable name="upper" select="'ABCDEFGHIJKLMNOPQRSTUVWXYZ'"/>
  <xsl:variable name="lower" select="'abcdefghijklmnopqrstuvwxyz'"/>
  <xsl:variable name="identity-names"
                select="' ref anaphor_antecedent dir_antecedent antecedent coref_set coref_class coref_chain coreference identity ident '"/>
  <!-- the characters that separate words (schemes.SEPARATORS), each made "_" -->
  <xsl:variable name="separators"> &#9;&#10;&#13;-./,;:!?()[]{}'"&amp;|+*=&lt;&gt;#@~^%$</xsl:variable>
  <xsl:variable name="underscores" select="substring('__________________________________________________', 1, string-length($separators))"/>

  <xsl:key name="pos" match="p" use="@id"/>
  <xsl:key name="ref" match="m" use="@ref"/>
  <xsl:key name="word-id" match="word" use="@id"/>
  <!-- the markables of a level file by id (a level is one file: one key table) -->
  <xsl:key name="markable-id" match="*[@id and @span]" use="@id"/>

  <xsl:variable name="mmax" select="/mmax_project"/>
  <!-- (document() of a node-set opens each node's name: an empty list opens nothing) -->
  <xsl:variable name="common-names"><xsl:if test="$common-uri != ''"><n><xsl:value-of select="$common-uri"/></n></xsl:if></xsl:variable>
  <xsl:variable name="common" select="document(exsl:node-set($common-names)/n, /)/common_paths"/>

  <xsl:template match="/">
    <xsl:variable name="levels-el" select="$common/annotations/level[1]/.. | $mmax[not($common/annotations/level)]/annotations"/>
    <xsl:variable name="levels" select="$levels-el/level"/>
    <xsl:variable name="words-name" select="translate(normalize-space($mmax/words), '\', '/')"/>
    <xsl:if test="$level-count != '' and count($levels) != number($level-count)">
      <xsl:message terminate="yes">error: the project files name <xsl:value-of select="count($levels)"/> levels here, <xsl:value-of select="$level-count"/> for corefio's engine</xsl:message>
    </xsl:if>
    <!-- the base data (no copy: keys and positions work on the parsed file itself) -->
    <xsl:variable name="words-names"><xsl:if test="$words-uri != ''"><n><xsl:value-of select="$words-uri"/></n></xsl:if></xsl:variable>
    <xsl:variable name="words-root" select="document(exsl:node-set($words-names)/n, /)/*"/>
    <xsl:if test="not($words-root)">
      <xsl:message terminate="yes">error: no base data file given for <xsl:value-of select="$words-name"/> (corefio's engine gives it, as words-uri)</xsl:message>
    </xsl:if>
    <xsl:variable name="words" select="$words-root//word"/>
    <xsl:message>rule basedata-words: <xsl:value-of select="count($words)"/> words from <xsl:value-of select="$words-name"/></xsl:message>

    <!-- the schemes: level, attribute name (lower case), type, identity -->
    <xsl:variable name="scheme-table">
      <xsl:for-each select="$levels">
        <xsl:variable name="level" select="@name"/>
        <xsl:if test="@schemefile">
          <xsl:variable name="uri" select="string(str:tokenize($scheme-uris, ' ')[count(current()/preceding-sibling::level) + 1])"/>
          <xsl:variable name="scheme-names"><xsl:if test="$uri != '' and $uri != '-'"><n><xsl:value-of select="$uri"/></n></xsl:if></xsl:variable>
          <xsl:for-each select="document(exsl:node-set($scheme-names)/n, /)//attribute[@name != '']">
            <xsl:variable name="low" select="translate(@name, $upper, $lower)"/>
            <xsl:variable name="type">
              <xsl:choose>
                <xsl:when test="@type"><xsl:value-of select="translate(@type, $upper, $lower)"/></xsl:when>
                <xsl:otherwise>freetext</xsl:otherwise>
              </xsl:choose>
            </xsl:variable>
            <xsl:variable name="says">
              <xsl:for-each select="@name | @id | @text | @point_to_markable_text | @add_to_markableset_text">
                <xsl:call-template name="says-identity"><xsl:with-param name="text" select="."/></xsl:call-template>
              </xsl:for-each>
            </xsl:variable>
            <a level="{$level}" name="{$low}" type="{$type}">
              <xsl:if test="($type = 'markable_set' or $type = 'markable_pointer')
                            and (contains($identity-names, concat(' ', $low, ' ')) or string($says) != '')">
                <xsl:attribute name="identity">yes</xsl:attribute>
              </xsl:if>
            </a>
          </xsl:for-each>
        </xsl:if>
      </xsl:for-each>
    </xsl:variable>
    <xsl:variable name="schemes" select="exsl:node-set($scheme-table)/a"/>
    <xsl:variable name="identity-levels" select="$levels[@name = $schemes[@identity]/@level]"/>
    <xsl:variable name="identity-level"
                  select="string(($identity-levels[contains(translate(@name, $upper, $lower), 'coref')] | $identity-levels[not($identity-levels[contains(translate(@name, $upper, $lower), 'coref')])])[1]/@name)"/>
    <xsl:message>rule layout: the project's layout and schemes (level names and files, common paths, its other files) are not written into RAF by this stylesheet: written as MMAX2 again, the project is laid out anew (corefio's Python reader carries them)</xsl:message>
    <xsl:message>rule identity-by-name: identity attributes <xsl:for-each select="$schemes[@identity]"><xsl:value-of select="concat(@level, ':', @name, ' ')"/></xsl:for-each>; identity level <xsl:value-of select="$identity-level"/></xsl:message>

    <!-- word positions and ids -->
    <!-- the usual base data: ids word_1 ... word_n in order, and every word has the
         attributes of the first word in the same order, id first, at most three others.
         Then those attributes are the columns (no search
         for attribute names word by word), and with compact = 'yes' and values that need no
         escaping (none empty, none with | or \) each word's v is its attributes taken by
         position (template word-chunks): looking attributes up by name() is most of the
         cost per word -->
    <xsl:variable name="w1" select="$words[1]"/>
    <xsl:variable name="a2" select="name($w1/@*[2])"/>
    <xsl:variable name="a3" select="name($w1/@*[3])"/>
    <xsl:variable name="a4" select="name($w1/@*[4])"/>
    <!-- the layout is checked attribute by attribute, not word by word: every word has an
         id (word_k), its k-th attribute for k = 2, 3, 4 has the first word's k-th name (a
         step $words/@*[k], with a number for predicate, stops at the k-th attribute), no
         word has a fifth, and there are as many attributes as the first word's times the
         words. Then every word has the first word's attributes and its id comes first (the
         only place left for it). A test of the form $words[name(@*[2]) != $a2 or ...]
         evaluates paths for every word, and costs about twice as much -->
    <xsl:variable name="usual"
                  select="name($w1/@*[1]) = 'id' and not($words[@id != concat('word_', position())])
                          and not($words/@*[2][name() != $a2] | $words/@*[3][name() != $a3]
                                  | $words/@*[4][name() != $a4] | $words/@*[5])
                          and count($words/@*) = count($words) * count($w1/@*)"/>
    <!-- (string() takes the attribute's value without building a node-set, as . does) -->
    <xsl:variable name="lean-columns"
                  select="($compact = 'yes' and $usual
                          and not($words/@*[position() &gt; 1][not(string()) or contains(string(), '|') or contains(string(), '\')]))
                          * (1 + ($a2 != '') + ($a3 != '') + ($a4 != ''))"/>
    <!-- ids other than word_1 ... word_n in order: then (only) a table of positions -->
    <xsl:variable name="explicit" select="not($usual) and boolean($words[not(@id) or @id != concat('word_', position())])"/>
    <xsl:variable name="ptable">
      <xsl:if test="$explicit">
        <xsl:for-each select="$words">
          <p id="{@id}" n="{position()}"/>
        </xsl:for-each>
      </xsl:if>
    </xsl:variable>
    <xsl:variable name="positions" select="exsl:node-set($ptable)"/>
    <!-- the words when their ids are explicit, else none (so that a lookup by position,
         which tests every word, costs nothing when ids give positions) -->
    <xsl:variable name="explicit-words" select="$words[$explicit]"/>
    <xsl:variable name="nwords" select="count($words)"/>
    <xsl:variable name="flat-words" select="count($words-root/word) = $nwords"/>
    <xsl:variable name="ctable">
      <xsl:choose>
        <xsl:when test="$usual">
          <xsl:for-each select="$w1/@*[position() &gt; 1]"><c name="{name()}"/></xsl:for-each>
        </xsl:when>
        <xsl:otherwise>
          <xsl:call-template name="column-names">
            <xsl:with-param name="attributes" select="$words/@*[name() != 'id']"/>
          </xsl:call-template>
        </xsl:otherwise>
      </xsl:choose>
    </xsl:variable>
    <xsl:variable name="columns" select="exsl:node-set($ctable)/c"/>
    <xsl:variable name="c1" select="string($columns[1]/@name)"/>
    <xsl:variable name="c2" select="string($columns[2]/@name)"/>
    <xsl:variable name="c3" select="string($columns[3]/@name)"/>

    <!-- the levels whose markables go into a table first, as <m> elements (level, layer,
         ref, spans as "a..b,c..d", attributes sorted into sets, pointers and plain ones):
         every level when some level has pointers (their targets are looked up in the
         table), else only the levels that may give the sentences (the table tells whether
         they tile the words). The markables of the other levels are written out in one step
         from their files (template level-markables with direct): building an <m> per
         markable and copying it again cost about a sixth of the stylesheet's instructions
         on the benchmark corpus (counted with callgrind) -->
    <xsl:variable name="with-pointers" select="boolean($schemes[@type = 'markable_pointer'])"/>
    <xsl:variable name="mtable">
      <xsl:for-each select="$levels">
        <xsl:variable name="level" select="string(@name)"/>
        <xsl:variable name="low" select="translate($level, $upper, $lower)"/>
        <xsl:variable name="relations" select="$schemes[@level = $level][@type = 'markable_set' or @type = 'markable_pointer']"/>
        <level name="{$level}" relations="{count($relations)}">
          <xsl:choose>
            <xsl:when test="$with-pointers or ($level != $identity-level and not($relations)
                            and ($low = 'sentence' or $low = 'sentences' or $low = 's'))">
              <xsl:call-template name="level-markables">
                <xsl:with-param name="direct" select="false()"/>
                <xsl:with-param name="schemes" select="$schemes"/>
                <xsl:with-param name="identity-level" select="$identity-level"/>
                <xsl:with-param name="nwords" select="$nwords"/>
                <xsl:with-param name="explicit" select="$explicit"/>
                <xsl:with-param name="positions" select="$positions"/>
              </xsl:call-template>
            </xsl:when>
            <xsl:otherwise><xsl:attribute name="direct">yes</xsl:attribute></xsl:otherwise>
          </xsl:choose>
        </level>
      </xsl:for-each>
    </xsl:variable>
    <xsl:variable name="all-levels" select="exsl:node-set($mtable)/level"/>
    <!-- the sentence level, when it tiles the words -->
    <!-- the sentence level: the first level named sentence, sentences or s (any case),
         not the identity level, without relation attributes, with markables, none of
         them discontinuous -->
    <xsl:variable name="candidate"
                  select="$all-levels[@name != $identity-level][@relations = 0]
                          [translate(@name, $upper, $lower) = 'sentence' or translate(@name, $upper, $lower) = 'sentences' or translate(@name, $upper, $lower) = 's']
                          [m][not(m[contains(@span, ',')])][1]"/>
    <!-- its markables by first word, the longer first; f and l: first and last word -->
    <xsl:variable name="sorted">
      <xsl:for-each select="$candidate/m">
        <xsl:sort select="substring-before(concat(@span, '..'), '..')" data-type="number"/>
        <xsl:sort select="concat(substring-after(@span, '..'), substring(@span, 1, not(contains(@span, '..')) * string-length(@span)))"
                  data-type="number" order="descending"/>
        <xsl:variable name="f" select="substring-before(concat(@span, '..'), '..')"/>
        <m f="{$f}">
          <xsl:attribute name="l">
            <xsl:choose>
              <xsl:when test="contains(@span, '..')"><xsl:value-of select="substring-after(@span, '..')"/></xsl:when>
              <xsl:otherwise><xsl:value-of select="@span"/></xsl:otherwise>
            </xsl:choose>
          </xsl:attribute>
          <xsl:copy-of select="@id | @span | attr"/>
        </m>
      </xsl:for-each>
    </xsl:variable>
    <xsl:variable name="sorted-ms" select="exsl:node-set($sorted)/m"/>
    <xsl:variable name="tiles" select="$sorted-ms[1]/@f = 1 and $sorted-ms[last()]/@l = count($words)
        and not($sorted-ms[following-sibling::m[1]/@f != @l + 1])"/>
    <!-- sentences that do not tile the words are made to, as the Python reader does: a
         sentence inside an earlier one is dropped, one overlapping the one before starts
         after it, and each run of words outside every sentence becomes a sentence
         without id (<p f l [id]> pieces, <d> for a dropped one) -->
    <xsl:variable name="pieces-table">
      <xsl:if test="$sorted-ms and not($tiles)">
        <xsl:call-template name="sentence-pieces">
          <xsl:with-param name="ms" select="$sorted-ms"/>
          <xsl:with-param name="before" select="0"/>
        </xsl:call-template>
        <xsl:variable name="covered" select="math:max($sorted-ms/@l)"/>
        <xsl:if test="$covered &lt; count($words)"><p f="{$covered + 1}" l="{count($words)}"/></xsl:if>
      </xsl:if>
    </xsl:variable>
    <xsl:variable name="pieces" select="exsl:node-set($pieces-table)"/>
    <xsl:variable name="sentence-ms" select="$sorted-ms[$tiles] | $pieces/p"/>
    <xsl:variable name="sentence-level" select="string($candidate[$sentence-ms]/@name)"/>
    <xsl:if test="$sentence-level != ''">
      <xsl:message>rule sentence-level: level <xsl:value-of select="$sentence-level"/> gives <xsl:value-of select="count($sentence-ms)"/> sentences</xsl:message>
    </xsl:if>
    <xsl:if test="$pieces/p[not(@id)]">
      <xsl:message>dropped: the sentence level <xsl:value-of select="$sentence-level"/> leaves <xsl:value-of select="sum($pieces/p[not(@id)]/@l) - sum($pieces/p[not(@id)]/@f) + count($pieces/p[not(@id)])"/> of <xsl:value-of select="count($words)"/> words outside any sentence: each of the <xsl:value-of select="count($pieces/p[not(@id)])"/> run(s) of them is made a sentence of its own</xsl:message>
    </xsl:if>
    <xsl:if test="$pieces/d or $pieces/p[@trimmed]">
      <xsl:message>dropped: sentence markables of the level <xsl:value-of select="$sentence-level"/> overlap: <xsl:value-of select="count($pieces/d)"/> inside an earlier one are dropped, <xsl:value-of select="count($pieces/p[@trimmed])"/> overlapping the one before now start after it</xsl:message>
    </xsl:if>
    <xsl:variable name="ms" select="$all-levels[@name != $sentence-level]/m"/>

    <struct type="reference_annotation_collection" version="2.0">
      <xsl:value-of select="$nl"/>
      <struct type="document">
        <xsl:attribute name="name">
          <xsl:choose>
            <xsl:when test="$mmax/corefio_document/@name"><xsl:value-of select="$mmax/corefio_document/@name"/></xsl:when>
            <xsl:when test="$doc-name != ''"><xsl:value-of select="$doc-name"/></xsl:when>
            <xsl:otherwise><xsl:value-of select="$stem"/></xsl:otherwise>
          </xsl:choose>
        </xsl:attribute>
        <xsl:if test="$mmax/corefio_document/@part">
          <xsl:attribute name="part"><xsl:value-of select="$mmax/corefio_document/@part"/></xsl:attribute>
        </xsl:if>
        <xsl:value-of select="$nl"/>
        <struct type="primary_data">
          <xsl:if test="$explicit"><xsl:attribute name="ids">yes</xsl:attribute></xsl:if>
          <xsl:value-of select="$nl"/>
          <xsl:for-each select="$columns">
            <feat type="column" name="{@name}"/>
            <xsl:value-of select="$nl"/>
          </xsl:for-each>
          <xsl:choose>
            <xsl:when test="$sentence-level != ''">
              <xsl:for-each select="$sentence-ms">
                <xsl:variable name="first" select="number(@f)"/>
                <xsl:variable name="last" select="number(@l)"/>
                <struct type="sentence">
                  <xsl:copy-of select="@id"/>
                  <xsl:for-each select="attr">
                    <feat type="attribute" name="{@name}"><xsl:value-of select="@value"/></feat>
                  </xsl:for-each>
                  <xsl:value-of select="$nl"/>
                  <!-- the sentence's words: its first word (by position) and those after it -->
                  <xsl:for-each select="$words-root">
                    <!-- the first word by its id when the ids are word_1 ... word_n (a key
                         lookup; a position predicate on $words tests every word) -->
                    <xsl:variable name="start" select="key('word-id', concat('word_', $first))[not($explicit)]
                                                       | $explicit-words[number($first)]"/>
                    <!-- the predicates below test every later word of the document: a
                         precomputed bound keeps that test cheap -->
                    <xsl:variable name="k" select="$last - $first"/>
                    <!-- words that are children of the root (as MMAX2 writes them): the
                         sibling axis, in chunks (template word-chunks); otherwise, or for a
                         sentence too long for the chunks' recursion, the following axis -->
                    <xsl:choose>
                      <xsl:when test="$flat-words and $k &lt; 16000">
                        <xsl:call-template name="word-chunks">
                          <xsl:with-param name="start" select="$start"/>
                          <xsl:with-param name="n" select="$first"/>
                          <xsl:with-param name="last" select="$last"/>
                          <xsl:with-param name="explicit" select="$explicit"/>
                          <xsl:with-param name="columns" select="$columns"/>
                          <xsl:with-param name="c1" select="$c1"/>
                          <xsl:with-param name="c2" select="$c2"/>
                          <xsl:with-param name="c3" select="$c3"/>
                          <xsl:with-param name="lean" select="$lean-columns"/>
                        </xsl:call-template>
                      </xsl:when>
                      <xsl:otherwise>
                    <xsl:for-each select="$start | $start/following::word[position() &lt;= $k]">
                      <w n="{$first + position() - 1}">
                        <xsl:if test="$explicit"><xsl:attribute name="id"><xsl:value-of select="@id"/></xsl:attribute></xsl:if>
                        <xsl:if test="$columns">
                        <!-- plain values (the common case) written directly, others packed -->
                        <xsl:variable name="v1" select="@*[name() = $c1]"/>
                        <xsl:variable name="v2" select="@*[name() = $c2]"/>
                        <xsl:choose>
                          <xsl:when test="$c3 = '' and $v1 != '' and ($c2 = '' or $v2 != '')
                                          and not(contains($v1, '|') or contains($v1, '\') or contains($v2, '|') or contains($v2, '\'))">
                            <xsl:attribute name="v">
                              <xsl:value-of select="$v1"/>
                              <xsl:if test="$c2 != ''"><xsl:value-of select="concat('|', $v2)"/></xsl:if>
                            </xsl:attribute>
                          </xsl:when>
                          <xsl:otherwise>
                            <xsl:call-template name="packed"><xsl:with-param name="columns" select="$columns"/><xsl:with-param name="c1" select="$c1"/><xsl:with-param name="c2" select="$c2"/><xsl:with-param name="c3" select="$c3"/></xsl:call-template>
                          </xsl:otherwise>
                        </xsl:choose>
                      </xsl:if>
                        <xsl:value-of select="."/>
                      </w>
                      <xsl:text>&#10;</xsl:text>
                    </xsl:for-each>
                      </xsl:otherwise>
                    </xsl:choose>

                  </xsl:for-each>
                </struct>
                <xsl:text>&#10;</xsl:text>
              </xsl:for-each>
            </xsl:when>
            <xsl:otherwise>
              <xsl:for-each select="$words">
                <w n="{position()}">
                  <xsl:if test="$explicit"><xsl:attribute name="id"><xsl:value-of select="@id"/></xsl:attribute></xsl:if>
                  <xsl:if test="$columns">
                        <!-- plain values (the common case) written directly, others packed -->
                        <xsl:variable name="v1" select="@*[name() = $c1]"/>
                        <xsl:variable name="v2" select="@*[name() = $c2]"/>
                        <xsl:choose>
                          <xsl:when test="$c3 = '' and $v1 != '' and ($c2 = '' or $v2 != '')
                                          and not(contains($v1, '|') or contains($v1, '\') or contains($v2, '|') or contains($v2, '\'))">
                            <xsl:attribute name="v">
                              <xsl:value-of select="$v1"/>
                              <xsl:if test="$c2 != ''"><xsl:value-of select="concat('|', $v2)"/></xsl:if>
                            </xsl:attribute>
                          </xsl:when>
                          <xsl:otherwise>
                            <xsl:call-template name="packed"><xsl:with-param name="columns" select="$columns"/><xsl:with-param name="c1" select="$c1"/><xsl:with-param name="c2" select="$c2"/><xsl:with-param name="c3" select="$c3"/></xsl:call-template>
                          </xsl:otherwise>
                        </xsl:choose>
                      </xsl:if>
                  <xsl:value-of select="."/>
                </w>
                <xsl:value-of select="$nl"/>
              </xsl:for-each>
            </xsl:otherwise>
          </xsl:choose>
        </struct>
        <xsl:value-of select="$nl"/>
        <!-- the markables, level by level: from the table, or from the level's file -->
        <xsl:for-each select="$levels">
          <xsl:variable name="p" select="position()"/>
          <xsl:variable name="table-level" select="$all-levels[$p]"/>
          <xsl:choose>
            <xsl:when test="$table-level/@name = $sentence-level"/>
            <xsl:when test="$table-level/@direct">
              <xsl:call-template name="level-markables">
                <xsl:with-param name="direct" select="true()"/>
                <xsl:with-param name="schemes" select="$schemes"/>
                <xsl:with-param name="identity-level" select="$identity-level"/>
                <xsl:with-param name="nwords" select="$nwords"/>
                <xsl:with-param name="explicit" select="$explicit"/>
                <xsl:with-param name="positions" select="$positions"/>
              </xsl:call-template>
            </xsl:when>
            <xsl:otherwise>
              <xsl:for-each select="$table-level/m">
                <struct type="markable">
                  <xsl:copy-of select="@id | @span | @layer"/>
                  <!-- the entity: the first identity set; the other sets are feats -->
                  <xsl:for-each select="set[@identity = 'true'][1]"><xsl:attribute name="entity"><xsl:value-of select="@value"/></xsl:attribute></xsl:for-each>
                  <xsl:for-each select="attr">
                    <feat type="attribute" name="{@name}"><xsl:value-of select="@value"/></feat>
                  </xsl:for-each>
                  <xsl:for-each select="set[@identity != 'true' or preceding-sibling::set[@identity = 'true']]">
                    <feat type="set" name="{@name}"><xsl:value-of select="@value"/></feat>
                  </xsl:for-each>
                </struct>
                <xsl:text>&#10;</xsl:text>
              </xsl:for-each>
            </xsl:otherwise>
          </xsl:choose>
        </xsl:for-each>
        <!-- pointers: one link per markable and attribute, targets grouped -->
        <xsl:variable name="pointers" select="$ms/pointer"/>
        <xsl:if test="$pointers">
          <xsl:message>rule pointer-links: <xsl:value-of select="count($pointers)"/> pointer attributes with a value</xsl:message>
        </xsl:if>
        <xsl:for-each select="$pointers">
          <xsl:variable name="level" select="string(../@level)"/>
          <xsl:variable name="targets">
            <xsl:call-template name="targets">
              <xsl:with-param name="text" select="@value"/>
              <xsl:with-param name="level" select="$level"/>
              <xsl:with-param name="identity-level" select="$identity-level"/>
              <xsl:with-param name="sentence-level" select="$sentence-level"/>
              <xsl:with-param name="levels" select="$all-levels"/>
            </xsl:call-template>
          </xsl:variable>
          <xsl:variable name="ts" select="exsl:node-set($targets)/t"/>
          <xsl:if test="$ts">
            <struct type="reflink" id="{../@ref}#{@name}" source="{../@ref}">
              <xsl:attribute name="reflinktype">
                <xsl:choose>
                  <xsl:when test="@identity = 'true'">coreference</xsl:when>
                  <xsl:otherwise><xsl:value-of select="translate(@name, $upper, $lower)"/></xsl:otherwise>
                </xsl:choose>
              </xsl:attribute>
              <xsl:if test="count($ts) = 1"><xsl:attribute name="target"><xsl:value-of select="$ts"/></xsl:attribute></xsl:if>
              <xsl:if test="count($ts) &gt; 1">
                <xsl:for-each select="$ts"><feat type="target" target="{.}"/></xsl:for-each>
              </xsl:if>
            </struct>
            <xsl:value-of select="$nl"/>
          </xsl:if>
        </xsl:for-each>
      </struct>
      <xsl:value-of select="$nl"/>
    </struct>
    <xsl:value-of select="$nl"/>
  </xsl:template>

  <!-- the pieces of a sentence level that does not tile the words (see $pieces-table):
       for the sorted markables $ms, the last word covered before the first of them
       being $before. Halves, so that the recursion is as deep as the logarithm of the
       number of sentences (XSLT 1.0 has no loop that carries a value) -->
  <xsl:template name="sentence-pieces">
    <xsl:param name="ms"/>
    <xsl:param name="before"/>
    <xsl:variable name="n" select="count($ms)"/>
    <xsl:choose>
      <xsl:when test="$n = 1">
        <xsl:for-each select="$ms">
          <xsl:choose>
            <xsl:when test="number(@l) &lt;= $before"><d id="{@id}"/></xsl:when>
            <xsl:otherwise>
              <xsl:if test="number(@f) &gt; $before + 1"><p f="{$before + 1}" l="{@f - 1}"/></xsl:if>
              <p l="{@l}">
                <xsl:copy-of select="@id"/>
                <xsl:choose>
                  <xsl:when test="number(@f) &lt;= $before">
                    <xsl:attribute name="f"><xsl:value-of select="$before + 1"/></xsl:attribute>
                    <xsl:attribute name="trimmed">yes</xsl:attribute>
                  </xsl:when>
                  <xsl:otherwise><xsl:copy-of select="@f"/></xsl:otherwise>
                </xsl:choose>
                <xsl:copy-of select="attr"/>
              </p>
            </xsl:otherwise>
          </xsl:choose>
        </xsl:for-each>
      </xsl:when>
      <xsl:when test="$n &gt; 1">
        <xsl:variable name="h" select="floor($n div 2)"/>
        <xsl:variable name="left" select="$ms[position() &lt;= $h]"/>
        <xsl:call-template name="sentence-pieces">
          <xsl:with-param name="ms" select="$left"/>
          <xsl:with-param name="before" select="$before"/>
        </xsl:call-template>
        <xsl:variable name="reach" select="math:max($left/@l)"/>
        <xsl:call-template name="sentence-pieces">
          <xsl:with-param name="ms" select="$ms[position() &gt; $h]"/>
          <xsl:with-param name="before" select="$before * ($before &gt;= $reach) + $reach * ($reach &gt; $before)"/>
        </xsl:call-template>
      </xsl:when>
    </xsl:choose>
  </xsl:template>

  <!-- the distinct attribute names, in order of first appearance: one pass over the
       attributes per name (a key would build a node-set as large as the corpus per word) -->
  <xsl:template name="column-names">
    <xsl:param name="attributes"/>
    <xsl:param name="seen" select="' '"/>
    <xsl:variable name="next" select="$attributes[not(contains($seen, concat(' ', name(), ' ')))][1]"/>
    <xsl:if test="$next">
      <c name="{name($next)}"/>
      <xsl:call-template name="column-names">
        <xsl:with-param name="attributes" select="$attributes"/>
        <xsl:with-param name="seen" select="concat($seen, name($next), ' ')"/>
      </xsl:call-template>
    </xsl:if>
  </xsl:template>

  <!-- the need-th of the names base_dup{n}, base_dup{n+1} ... that no markable of the
       level file in context carries -->
  <xsl:template name="duplicate-name">
    <xsl:param name="base"/>
    <xsl:param name="need"/>
    <xsl:param name="n"/>
    <xsl:variable name="name" select="concat($base, '_dup', $n)"/>
    <xsl:choose>
      <xsl:when test="key('markable-id', $name) or $need &gt; 1">
        <xsl:call-template name="duplicate-name">
          <xsl:with-param name="base" select="$base"/>
          <xsl:with-param name="need" select="$need - not(key('markable-id', $name))"/>
          <xsl:with-param name="n" select="$n + 1"/>
        </xsl:call-template>
      </xsl:when>
      <xsl:otherwise><xsl:value-of select="$name"/></xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <!-- pointer targets: existing markables only (a dangling one is dropped), as refs -->
  <xsl:template name="targets">
    <xsl:param name="text"/>
    <xsl:param name="level"/>
    <xsl:param name="identity-level"/>
    <xsl:param name="sentence-level"/>
    <xsl:param name="levels"/>
    <xsl:variable name="part" select="normalize-space(substring-before(concat($text, ';'), ';'))"/>
    <xsl:if test="$part != ''">
      <xsl:variable name="tlevel-raw">
        <xsl:choose>
          <xsl:when test="contains($part, ':')"><xsl:value-of select="substring-before($part, ':')"/></xsl:when>
          <xsl:otherwise><xsl:value-of select="$level"/></xsl:otherwise>
        </xsl:choose>
      </xsl:variable>
      <xsl:variable name="tid">
        <xsl:choose>
          <xsl:when test="contains($part, ':')"><xsl:value-of select="substring-after($part, ':')"/></xsl:when>
          <xsl:otherwise><xsl:value-of select="$part"/></xsl:otherwise>
        </xsl:choose>
      </xsl:variable>
      <xsl:variable name="tlevel">
        <xsl:choose>
          <xsl:when test="$levels[@name = $tlevel-raw]"><xsl:value-of select="$tlevel-raw"/></xsl:when>
          <xsl:when test="$levels[translate(@name, $upper, $lower) = translate($tlevel-raw, $upper, $lower)]">
            <xsl:value-of select="$levels[translate(@name, $upper, $lower) = translate($tlevel-raw, $upper, $lower)][1]/@name"/>
          </xsl:when>
          <xsl:otherwise><xsl:value-of select="$tlevel-raw"/></xsl:otherwise>
        </xsl:choose>
      </xsl:variable>
      <xsl:variable name="ref">
        <xsl:if test="$tlevel != $identity-level"><xsl:value-of select="concat($tlevel, ':')"/></xsl:if>
        <xsl:value-of select="$tid"/>
      </xsl:variable>
      <xsl:for-each select="$levels[1]">
        <xsl:choose>
          <xsl:when test="key('ref', $ref)[../@name != $sentence-level]"><t><xsl:value-of select="$ref"/></t></xsl:when>
          <xsl:otherwise>
            <xsl:message>dropped: a pointer target <xsl:value-of select="$part"/> does not exist; dropped</xsl:message>
          </xsl:otherwise>
        </xsl:choose>
      </xsl:for-each>
    </xsl:if>
    <xsl:if test="contains($text, ';')">
      <xsl:call-template name="targets">
        <xsl:with-param name="text" select="substring-after($text, ';')"/>
        <xsl:with-param name="level" select="$level"/>
        <xsl:with-param name="identity-level" select="$identity-level"/>
        <xsl:with-param name="sentence-level" select="$sentence-level"/>
        <xsl:with-param name="levels" select="$levels"/>
      </xsl:call-template>
    </xsl:if>
  </xsl:template>

  <!-- the markables of the level in context (a level element of common_paths): <m>
       elements for the table, or with direct the <struct>s of the result -->
  <xsl:template name="level-markables">
    <xsl:param name="direct"/>
    <xsl:param name="schemes"/>
    <xsl:param name="identity-level"/>
    <xsl:param name="nwords"/>
    <xsl:param name="explicit"/>
    <xsl:param name="positions"/>
    <xsl:variable name="level" select="string(@name)"/>
    <xsl:variable name="rel" select="string(str:tokenize($level-uris, ' ')[count(current()/preceding-sibling::level) + 1])"/>
    <xsl:variable name="level-names"><xsl:if test="$rel != '' and $rel != '-'"><n><xsl:value-of select="$rel"/></n></xsl:if></xsl:variable>
    <xsl:variable name="file" select="document(exsl:node-set($level-names)/n, /)"/>
    <!-- this level's attribute names by kind, as " a b c " strings (tested with contains) -->
    <xsl:variable name="set-names">
      <xsl:text> </xsl:text>
      <xsl:for-each select="$schemes[@level = $level][@type = 'markable_set']"><xsl:value-of select="concat(@name, ' ')"/></xsl:for-each>
    </xsl:variable>
    <xsl:variable name="pointer-names">
      <xsl:text> </xsl:text>
      <xsl:for-each select="$schemes[@level = $level][@type = 'markable_pointer']"><xsl:value-of select="concat(@name, ' ')"/></xsl:for-each>
    </xsl:variable>
    <xsl:variable name="identity-attrs">
      <xsl:text> </xsl:text>
      <xsl:for-each select="$schemes[@level = $level][@identity]"><xsl:value-of select="concat(@name, ' ')"/></xsl:for-each>
    </xsl:variable>
    <!-- the largest word number a span may name by its id here (0: ids are explicit),
         what a markable's ref starts with ("level:" outside the identity level) and the
         lists as strings: computed once per level, not once per markable -->
    <xsl:variable name="n-max" select="$nwords * not($explicit)"/>
    <xsl:variable name="ref-prefix" select="substring(concat($level, ':'), 1, ($level != $identity-level) * (string-length($level) + 1))"/>
    <xsl:variable name="set-list" select="string($set-names)"/>
    <xsl:variable name="pointer-list" select="string($pointer-names)"/>
    <xsl:variable name="identity-list" select="string($identity-attrs)"/>
    <!-- elements named markable or ending so (the first test is the usual case, and cheaper) -->
    <xsl:variable name="markables" select="$file/*/*[local-name() = 'markable' or substring(local-name(), string-length(local-name()) - 7) = 'markable'][@id and @span]"/>
    <xsl:message>rule level-markables: level <xsl:value-of select="$level"/>, <xsl:value-of select="count($markables)"/> markables</xsl:message>
    <!-- an id that several markables of the level carry (MMAX2 files edited by hand): the
         first keeps it, pointers naming it point to the first; the k-th of them (k > 1)
         is renamed to the (k-1)-th of the names id_dup2, id_dup3 ... that no markable of
         the level carries, as the Python reader does. <r g="generate-id" id="new id"/> -->
    <xsl:variable name="renaming">
      <xsl:for-each select="$markables[$repeated-ids != 'no'][key('markable-id', @id)[2]]">
        <xsl:variable name="me" select="generate-id()"/>
        <xsl:variable name="same" select="key('markable-id', @id)"/>
        <xsl:if test="generate-id($same[1]) != $me">
          <xsl:variable name="k">
            <xsl:for-each select="$same"><xsl:if test="generate-id() = $me"><xsl:value-of select="position()"/></xsl:if></xsl:for-each>
          </xsl:variable>
          <xsl:variable name="new">
            <xsl:call-template name="duplicate-name">
              <xsl:with-param name="base" select="string(@id)"/>
              <xsl:with-param name="need" select="number($k) - 1"/>
              <xsl:with-param name="n" select="2"/>
            </xsl:call-template>
          </xsl:variable>
          <xsl:message>duplicate-id:<xsl:value-of select="concat('&#9;', $rel, '&#9;', $level, '&#9;', @id, '&#9;', $new)"/></xsl:message>
          <r g="{$me}" id="{$new}"/>
        </xsl:if>
      </xsl:for-each>
    </xsl:variable>
    <xsl:variable name="renamed" select="exsl:node-set($renaming)/r"/>
    <xsl:for-each select="$markables">
      <!-- (the test of an empty $renamed costs nothing per markable) -->
      <xsl:variable name="new-id" select="$renamed[@g = generate-id(current())]/@id"/>
      <xsl:variable name="id" select="concat(@id[not($new-id)], $new-id)"/>
      <xsl:variable name="text" select="string(@span)"/>
      <xsl:variable name="x" select="normalize-space(substring-before(concat($text, '..'), '..'))"/>
      <xsl:variable name="y" select="normalize-space(substring-after($text, '..'))"/>
      <xsl:variable name="xn" select="number(substring-after($x, 'word_'))"/>
      <xsl:variable name="yn" select="number(substring-after($y, 'word_'))"/>
      <xsl:choose>
        <!-- one fragment (most spans) and ids word_1 ... word_n in order (checked once
             for the whole file): a position is the number in the id. The span is
             computed by one expression: a variable with content would build a result
             tree fragment for every markable (about 5,000 instructions each) -->
        <xsl:when test="not(contains($text, ',')) and starts-with($x, 'word_')
                        and $xn &gt;= 1 and $xn &lt;= $n-max and $xn = floor($xn)
                        and ($y = '' or (starts-with($y, 'word_') and $yn &gt;= $xn and $yn &lt;= $n-max and $yn = floor($yn)))">
          <xsl:choose>
            <xsl:when test="$direct">
              <xsl:call-template name="markable-struct">
                <xsl:with-param name="id" select="$id"/>
                <xsl:with-param name="span" select="concat($xn, substring(concat('..', $yn), 1, ($y != '' and $yn != $xn) * (2 + string-length($yn))))"/>
                <xsl:with-param name="ref-prefix" select="$ref-prefix"/>
                <xsl:with-param name="set-names" select="$set-list"/>
                <xsl:with-param name="identity-attrs" select="$identity-list"/>
              </xsl:call-template>
            </xsl:when>
            <xsl:otherwise>
              <xsl:call-template name="level-markable">
                <xsl:with-param name="id" select="$id"/>
                <xsl:with-param name="span" select="concat($xn, substring(concat('..', $yn), 1, ($y != '' and $yn != $xn) * (2 + string-length($yn))))"/>
                <xsl:with-param name="level" select="$level"/>
                <xsl:with-param name="ref-prefix" select="$ref-prefix"/>
                <xsl:with-param name="set-names" select="$set-list"/>
                <xsl:with-param name="pointer-names" select="$pointer-list"/>
                <xsl:with-param name="identity-attrs" select="$identity-list"/>
              </xsl:call-template>
            </xsl:otherwise>
          </xsl:choose>
        </xsl:when>
        <xsl:otherwise>
          <xsl:variable name="span">
            <xsl:choose>
              <xsl:when test="not(contains($text, ','))">
                <!-- one fragment: looked up in the table of positions -->
                <xsl:for-each select="$positions">
                  <xsl:variable name="a" select="key('pos', $x)/@n"/>
                  <xsl:variable name="b" select="key('pos', $y)/@n"/>
                  <xsl:choose>
                    <xsl:when test="not($a) or ($y != '' and (not($b) or number($b) &lt; number($a)))">
                      <xsl:message>dropped: span <xsl:value-of select="$text"/> names no word of the base data (or runs backwards)</xsl:message>
                    </xsl:when>
                    <xsl:when test="$y = '' or $b = $a"><xsl:value-of select="$a"/></xsl:when>
                    <xsl:otherwise><xsl:value-of select="concat($a, '..', $b)"/></xsl:otherwise>
                  </xsl:choose>
                </xsl:for-each>
              </xsl:when>
              <xsl:otherwise>
                <xsl:call-template name="span">
                  <xsl:with-param name="text" select="$text"/>
                  <xsl:with-param name="positions" select="$positions"/>
                  <xsl:with-param name="explicit" select="$explicit"/>
                  <xsl:with-param name="nwords" select="$nwords"/>
                </xsl:call-template>
              </xsl:otherwise>
            </xsl:choose>
          </xsl:variable>
          <xsl:if test="$span != ''">
            <xsl:choose>
              <xsl:when test="$direct">
                <xsl:call-template name="markable-struct">
                  <xsl:with-param name="id" select="$id"/>
                  <xsl:with-param name="span" select="string($span)"/>
                  <xsl:with-param name="ref-prefix" select="$ref-prefix"/>
                  <xsl:with-param name="set-names" select="$set-list"/>
                  <xsl:with-param name="identity-attrs" select="$identity-list"/>
                </xsl:call-template>
              </xsl:when>
              <xsl:otherwise>
                <xsl:call-template name="level-markable">
                  <xsl:with-param name="id" select="$id"/>
                  <xsl:with-param name="span" select="string($span)"/>
                  <xsl:with-param name="level" select="$level"/>
                  <xsl:with-param name="ref-prefix" select="$ref-prefix"/>
                  <xsl:with-param name="set-names" select="$set-list"/>
                  <xsl:with-param name="pointer-names" select="$pointer-list"/>
                  <xsl:with-param name="identity-attrs" select="$identity-list"/>
                </xsl:call-template>
              </xsl:otherwise>
            </xsl:choose>
          </xsl:if>
        </xsl:otherwise>
      </xsl:choose>
    </xsl:for-each>
  </xsl:template>

  <!-- "w1..w3,w5" as word positions "1..3,5", fragments sorted and merged as the Python
       reader's contiguous spans -->
  <xsl:template name="span">
    <xsl:param name="text"/>
    <xsl:param name="positions"/>
    <xsl:param name="explicit"/>
    <xsl:param name="nwords"/>
    <xsl:variable name="frags">
      <xsl:call-template name="fragments">
        <xsl:with-param name="text" select="$text"/>
        <xsl:with-param name="positions" select="$positions"/>
                    <xsl:with-param name="explicit" select="$explicit"/>
                    <xsl:with-param name="nwords" select="$nwords"/>
      </xsl:call-template>
    </xsl:variable>
    <xsl:variable name="fs" select="exsl:node-set($frags)/f"/>
    <xsl:choose>
      <xsl:when test="count($fs) = 1">
        <xsl:value-of select="$fs/@a"/>
        <xsl:if test="$fs/@b != $fs/@a"><xsl:value-of select="concat('..', $fs/@b)"/></xsl:if>
      </xsl:when>
      <xsl:otherwise>
        <xsl:variable name="sorted">
          <xsl:for-each select="$fs">
            <xsl:sort select="@a" data-type="number"/>
            <xsl:copy-of select="."/>
          </xsl:for-each>
        </xsl:variable>
        <xsl:call-template name="merge">
          <xsl:with-param name="f" select="exsl:node-set($sorted)/f[1]"/>
          <xsl:with-param name="a" select="number(exsl:node-set($sorted)/f[1]/@a)"/>
          <xsl:with-param name="b" select="number(exsl:node-set($sorted)/f[1]/@b)"/>
          <xsl:with-param name="first" select="true()"/>
        </xsl:call-template>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <xsl:template name="merge">
    <xsl:param name="f"/>
    <xsl:param name="a"/>
    <xsl:param name="b"/>
    <xsl:param name="first"/>
    <xsl:variable name="next" select="$f/following-sibling::f[1]"/>
    <xsl:choose>
      <xsl:when test="$next and number($next/@a) &lt;= $b + 1">
        <xsl:call-template name="merge">
          <xsl:with-param name="f" select="$next"/>
          <xsl:with-param name="a" select="$a"/>
          <xsl:with-param name="b" select="($b &gt;= number($next/@b)) * $b + ($b &lt; number($next/@b)) * number($next/@b)"/>
          <xsl:with-param name="first" select="$first"/>
        </xsl:call-template>
      </xsl:when>
      <xsl:otherwise>
        <xsl:if test="not($first)">,</xsl:if>
        <xsl:value-of select="$a"/>
        <xsl:if test="$b != $a"><xsl:value-of select="concat('..', $b)"/></xsl:if>
        <xsl:if test="$next">
          <xsl:call-template name="merge">
            <xsl:with-param name="f" select="$next"/>
            <xsl:with-param name="a" select="number($next/@a)"/>
            <xsl:with-param name="b" select="number($next/@b)"/>
            <xsl:with-param name="first" select="false()"/>
          </xsl:call-template>
        </xsl:if>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <xsl:template name="fragments">
    <xsl:param name="text"/>
    <xsl:param name="positions"/>
    <xsl:param name="explicit"/>
    <xsl:param name="nwords"/>
    <xsl:variable name="frag" select="normalize-space(substring-before(concat($text, ','), ','))"/>
    <xsl:if test="$frag != ''">
      <xsl:variable name="x" select="normalize-space(substring-before(concat($frag, '..'), '..'))"/>
      <xsl:variable name="y" select="normalize-space(substring-after($frag, '..'))"/>
      <xsl:variable name="xn" select="number(substring-after($x, 'word_'))"/>
      <xsl:variable name="yn" select="number(substring-after($y, 'word_'))"/>
      <xsl:choose>
        <!-- default ids: the number in the id is the position -->
        <xsl:when test="not($explicit)">
          <xsl:choose>
            <xsl:when test="starts-with($x, 'word_') and $xn &gt;= 1 and $xn &lt;= $nwords and $xn = floor($xn)
                            and ($y = '' or (starts-with($y, 'word_') and $yn &gt;= $xn and $yn &lt;= $nwords and $yn = floor($yn)))">
              <f a="{$xn}">
                <xsl:attribute name="b">
                  <xsl:choose>
                    <xsl:when test="$y = ''"><xsl:value-of select="$xn"/></xsl:when>
                    <xsl:otherwise><xsl:value-of select="$yn"/></xsl:otherwise>
                  </xsl:choose>
                </xsl:attribute>
              </f>
            </xsl:when>
            <xsl:otherwise>
              <xsl:message>dropped: span fragment <xsl:value-of select="$frag"/> names no word of the base data (or runs backwards); dropped</xsl:message>
            </xsl:otherwise>
          </xsl:choose>
        </xsl:when>
        <xsl:otherwise>
      <xsl:for-each select="$positions">
        <xsl:variable name="a" select="key('pos', $x)/@n"/>
        <xsl:variable name="b" select="key('pos', $y)/@n | key('pos', $x)[$y = '']/@n"/>
        <xsl:choose>
          <xsl:when test="not($a) or not($b) or number($b) &lt; number($a)">
            <xsl:message>dropped: span fragment <xsl:value-of select="$frag"/> names no word of the base data (or runs backwards); dropped</xsl:message>
          </xsl:when>
          <xsl:otherwise><f a="{$a}" b="{$b}"/></xsl:otherwise>
        </xsl:choose>
      </xsl:for-each>
        </xsl:otherwise>
      </xsl:choose>
    </xsl:if>
    <xsl:if test="contains($text, ',')">
      <xsl:call-template name="fragments">
        <xsl:with-param name="text" select="substring-after($text, ',')"/>
        <xsl:with-param name="positions" select="$positions"/>
                    <xsl:with-param name="explicit" select="$explicit"/>
                    <xsl:with-param name="nwords" select="$nwords"/>
      </xsl:call-template>
    </xsl:if>
  </xsl:template>

  <!-- the v attribute of the current word: its column values, packed as RAF says; the
       first three columns by name (variables computed once), any others in a loop -->
  <!-- the <m> of the level markable in context: its span (positions), its layer and ref,
       its attributes sorted into sets, pointers and plain attributes -->
  <xsl:template name="level-markable">
    <xsl:param name="id"/>
    <xsl:param name="span"/>
    <xsl:param name="level"/>
    <xsl:param name="ref-prefix"/>
    <xsl:param name="set-names"/>
    <xsl:param name="pointer-names"/>
    <xsl:param name="identity-attrs"/>
    <m id="{$id}" level="{$level}" span="{$span}" ref="{$ref-prefix}{$id}">
      <xsl:if test="$ref-prefix != ''"><xsl:attribute name="layer"><xsl:value-of select="$level"/></xsl:attribute></xsl:if>
      <xsl:for-each select="@*[name() != 'id' and name() != 'span' and name() != 'mmax_level']">
        <!-- (per attribute: the alphabets written out cost less than variables) -->
        <xsl:variable name="key" select="concat(' ', translate(name(), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), ' ')"/>
        <xsl:choose>
          <xsl:when test="contains($set-names, $key)">
            <xsl:if test="not(string(.) = '' or translate(string(.), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') = 'empty')">
              <set name="{name()}" identity="{contains($identity-attrs, $key)}" value="{.}"/>
            </xsl:if>
          </xsl:when>
          <xsl:when test="contains($pointer-names, $key)">
            <xsl:if test="not(string(.) = '' or translate(string(.), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') = 'empty')">
              <pointer name="{name()}" identity="{contains($identity-attrs, $key)}" value="{.}"/>
            </xsl:if>
          </xsl:when>
          <xsl:otherwise><attr name="{name()}" value="{.}"/></xsl:otherwise>
        </xsl:choose>
      </xsl:for-each>
    </m>
  </xsl:template>

  <!-- the <struct> of the markable in context, for a level written in one step (so no
       pointers: see $mtable); its plain attributes and sets as feats in one pass -->
  <xsl:template name="markable-struct">
    <xsl:param name="id"/>
    <xsl:param name="span"/>
    <xsl:param name="ref-prefix"/>
    <xsl:param name="set-names"/>
    <xsl:param name="identity-attrs"/>
    <struct type="markable" id="{$id}" span="{$span}">
      <xsl:if test="$ref-prefix != ''"><xsl:attribute name="layer"><xsl:value-of select="substring($ref-prefix, 1, string-length($ref-prefix) - 1)"/></xsl:attribute></xsl:if>
      <!-- (names are looked up as they are first, lower-cased only when not found:
           translate() with the whole alphabet costs more than the rest of the test) -->
      <xsl:variable name="named" select="@*[name() != 'id' and name() != 'span' and name() != 'mmax_level']"/>
      <!-- the entity: the first identity set with a value -->
      <xsl:variable name="entity"
                    select="$named[contains($identity-attrs, concat(' ', name(), ' '))
                                   or contains($identity-attrs, concat(' ', translate(name(), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), ' '))]
                            [not(string(.) = '' or translate(string(.), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') = 'empty')][1]"/>
      <xsl:if test="$entity"><xsl:attribute name="entity"><xsl:value-of select="$entity"/></xsl:attribute></xsl:if>
      <!-- the other attributes, unless the entity was the only one (most markables of a
           coreference level): a loop costs even for one attribute -->
      <xsl:if test="$named[2] or not($entity)">
        <xsl:for-each select="$named">
          <xsl:choose>
            <xsl:when test="not(contains($set-names, concat(' ', name(), ' '))
                                or contains($set-names, concat(' ', translate(name(), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), ' ')))">
              <feat type="attribute" name="{name()}"><xsl:value-of select="."/></feat>
            </xsl:when>
            <xsl:when test="not(string(.) = '' or translate(string(.), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') = 'empty'
                            or generate-id() = generate-id($entity))">
              <feat type="set" name="{name()}"><xsl:value-of select="."/></feat>
            </xsl:when>
          </xsl:choose>
        </xsl:for-each>
      </xsl:if>
    </struct>
    <xsl:text>&#10;</xsl:text>
  </xsl:template>

  <!-- the <w> of the words at positions $n ... $last, $start being the one at $n: 16 at a
       time. following-sibling::word[i] with a number stops at the i-th sibling, while
       following-sibling::word[position() &lt;= $k] tests every later word of the document,
       sentence after sentence (quadratic: on the benchmark corpus these chunks save about
       a tenth of the stylesheet's instructions, counted with callgrind). -->
  <xsl:template name="word-chunks">
    <xsl:param name="start"/>
    <xsl:param name="n"/>
    <xsl:param name="last"/>
    <xsl:param name="explicit"/>
    <xsl:param name="columns"/>
    <xsl:param name="c1"/>
    <xsl:param name="c2"/>
    <xsl:param name="c3"/>
    <xsl:param name="lean"/>
    <xsl:variable name="chunk" select="$start | $start/following-sibling::word[1] | $start/following-sibling::word[2] | $start/following-sibling::word[3] | $start/following-sibling::word[4] | $start/following-sibling::word[5] | $start/following-sibling::word[6] | $start/following-sibling::word[7] | $start/following-sibling::word[8] | $start/following-sibling::word[9] | $start/following-sibling::word[10] | $start/following-sibling::word[11] | $start/following-sibling::word[12] | $start/following-sibling::word[13] | $start/following-sibling::word[14] | $start/following-sibling::word[15]"/>
    <xsl:variable name="words" select="$chunk[position() &lt;= $last - $n + 1]"/>
    <xsl:choose>
      <!-- compact, plain values by position (see $lean-columns): no n, no line breaks -->
      <xsl:when test="$lean = 1"><xsl:for-each select="$words"><w><xsl:value-of select="."/></w></xsl:for-each></xsl:when>
      <xsl:when test="$lean = 2"><xsl:for-each select="$words"><w v="{@*[2]}"><xsl:value-of select="."/></w></xsl:for-each></xsl:when>
      <xsl:when test="$lean = 3"><xsl:for-each select="$words"><w v="{@*[2]}|{@*[3]}"><xsl:value-of select="."/></w></xsl:for-each></xsl:when>
      <xsl:when test="$lean = 4"><xsl:for-each select="$words"><w v="{@*[2]}|{@*[3]}|{@*[4]}"><xsl:value-of select="."/></w></xsl:for-each></xsl:when>
      <xsl:otherwise>
        <xsl:for-each select="$words">
          <w n="{$n + position() - 1}">
            <xsl:if test="$explicit"><xsl:attribute name="id"><xsl:value-of select="@id"/></xsl:attribute></xsl:if>
            <xsl:if test="$columns">
              <!-- plain values (the common case) written directly, others packed -->
              <xsl:variable name="v1" select="@*[name() = $c1]"/>
              <xsl:variable name="v2" select="@*[name() = $c2]"/>
              <xsl:choose>
                <xsl:when test="$c3 = '' and $v1 != '' and ($c2 = '' or $v2 != '')
                                and not(contains($v1, '|') or contains($v1, '\') or contains($v2, '|') or contains($v2, '\'))">
                  <xsl:attribute name="v">
                    <xsl:value-of select="$v1"/>
                    <xsl:if test="$c2 != ''"><xsl:value-of select="concat('|', $v2)"/></xsl:if>
                  </xsl:attribute>
                </xsl:when>
                <xsl:otherwise>
                  <xsl:call-template name="packed"><xsl:with-param name="columns" select="$columns"/><xsl:with-param name="c1" select="$c1"/><xsl:with-param name="c2" select="$c2"/><xsl:with-param name="c3" select="$c3"/></xsl:call-template>
                </xsl:otherwise>
              </xsl:choose>
            </xsl:if>
            <xsl:value-of select="."/>
          </w>
          <xsl:text>&#10;</xsl:text>
        </xsl:for-each>
      </xsl:otherwise>
    </xsl:choose>
    <xsl:if test="$last - $n &gt;= 16">
      <xsl:call-template name="word-chunks">
        <xsl:with-param name="start" select="$start/following-sibling::word[16]"/>
        <xsl:with-param name="n" select="$n + 16"/>
        <xsl:with-param name="last" select="$last"/>
        <xsl:with-param name="explicit" select="$explicit"/>
        <xsl:with-param name="columns" select="$columns"/>
        <xsl:with-param name="c1" select="$c1"/>
        <xsl:with-param name="c2" select="$c2"/>
        <xsl:with-param name="c3" select="$c3"/>
        <xsl:with-param name="lean" select="$lean"/>
      </xsl:call-template>
    </xsl:if>
  </xsl:template>

  <xsl:template name="packed">
    <xsl:param name="columns"/>
    <xsl:param name="c1"/>
    <xsl:param name="c2"/>
    <xsl:param name="c3"/>
    <xsl:variable name="w" select="."/>
    <xsl:attribute name="v">
      <xsl:variable name="v1" select="@*[name() = $c1]"/>
      <xsl:choose>
        <xsl:when test="not($v1)"/>
        <xsl:when test="$v1 = '' or contains($v1, '\') or contains($v1, '|')">
          <xsl:call-template name="pack"><xsl:with-param name="value" select="string($v1)"/></xsl:call-template>
        </xsl:when>
        <xsl:otherwise><xsl:value-of select="$v1"/></xsl:otherwise>
      </xsl:choose>
      <xsl:if test="$c2 != ''">
        <xsl:text>|</xsl:text>
        <xsl:variable name="v2" select="@*[name() = $c2]"/>
        <xsl:choose>
          <xsl:when test="not($v2)"/>
          <xsl:when test="$v2 = '' or contains($v2, '\') or contains($v2, '|')">
            <xsl:call-template name="pack"><xsl:with-param name="value" select="string($v2)"/></xsl:call-template>
          </xsl:when>
          <xsl:otherwise><xsl:value-of select="$v2"/></xsl:otherwise>
        </xsl:choose>
      </xsl:if>
      <xsl:if test="$c3 != ''">
        <xsl:text>|</xsl:text>
        <xsl:call-template name="field"><xsl:with-param name="value" select="@*[name() = $c3]"/></xsl:call-template>
      </xsl:if>
      <xsl:for-each select="$columns[position() &gt; 3]">
        <xsl:text>|</xsl:text>
        <xsl:call-template name="field"><xsl:with-param name="value" select="$w/@*[name() = current()/@name]"/></xsl:call-template>
      </xsl:for-each>
    </xsl:attribute>
  </xsl:template>

  <xsl:template name="field">
    <xsl:param name="value"/>
    <xsl:choose>
      <xsl:when test="not($value)"/>
      <xsl:when test="$value = '' or contains($value, '\') or contains($value, '|')">
        <xsl:call-template name="pack"><xsl:with-param name="value" select="string($value)"/></xsl:call-template>
      </xsl:when>
      <xsl:otherwise><xsl:value-of select="$value"/></xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <xsl:template name="pack">
    <xsl:param name="value"/>
    <xsl:choose>
      <xsl:when test="$value = ''">\e</xsl:when>
      <xsl:when test="contains($value, '\') or contains($value, '|')">
        <xsl:call-template name="pack-rest"><xsl:with-param name="value" select="$value"/></xsl:call-template>
      </xsl:when>
      <xsl:otherwise><xsl:value-of select="$value"/></xsl:otherwise>
    </xsl:choose>
  </xsl:template>

  <xsl:template name="pack-rest">
    <xsl:param name="value"/>
    <xsl:variable name="c" select="substring($value, 1, 1)"/>
    <xsl:if test="$c = '\' or $c = '|'">\</xsl:if>
    <xsl:value-of select="$c"/>
    <xsl:if test="string-length($value) &gt; 1">
      <xsl:call-template name="pack-rest"><xsl:with-param name="value" select="substring($value, 2)"/></xsl:call-template>
    </xsl:if>
  </xsl:template>
  <!-- "yes" when the text (an attribute's name, id or the texts MMAX2 shows for it)
       says coreference: the rule of corefio/formats/mmax2/schemes.py -->
  <xsl:template name="says-identity">
    <xsl:param name="text"/>
    <xsl:variable name="w" select="concat('_', translate(translate($text, $upper, $lower), $separators, $underscores), '_')"/>
    <xsl:if test="(contains($w, 'coref') or contains($w, '_ident'))
                  and not(contains($w, '_near_') or contains($w, '_non_') or contains($w, '_not_')
                          or contains($w, '_no_') or contains($w, '_quasi_') or contains($w, '_partial_')
                          or contains($w, 'bridg') or contains($w, '_nident'))">yes</xsl:if>
  </xsl:template>
</xsl:stylesheet>
